import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import {
  diffPhotographs,
  mcpToolName,
  photographMcpTools,
  type McpListedTool,
} from '../../../src/domain/tools/mcp-tools.js';

const schema = { type: 'object', properties: { q: { type: 'string' } } };
const listed = (name: string, extra: Partial<McpListedTool> = {}): McpListedTool => ({
  name,
  description: `${name} does things`,
  inputSchema: schema,
  ...extra,
});

describe('model-facing names of MCP tools', () => {
  test('are mcp__<origin>__<tool>, with characters outside [A-Za-z0-9_-] turned into "_"', () => {
    assert.deepEqual(mcpToolName('jira cloud', 'issues.search'), {
      ok: true,
      name: 'mcp__jira_cloud__issues_search',
    });
  });

  test('a name longer than 128 characters makes the tool unusable, with the reason', () => {
    const { tools, unusable } = photographMcpTools('origin', [listed('x'.repeat(120))]);
    assert.deepEqual(tools, []);
    assert.equal(unusable.length, 1);
    assert.match(unusable[0]!.reason, /longer than 128 characters/);
  });

  test('tools whose names collide once normalised are all unusable: a call could mean either', () => {
    const { tools, unusable } = photographMcpTools('o', [
      listed('a.b'),
      listed('a_b'),
      listed('c'),
    ]);
    assert.deepEqual(
      tools.map((tool) => tool.name),
      ['mcp__o__c'],
    );
    assert.deepEqual(unusable.map((tool) => tool.mcp_name).sort(), ['a.b', 'a_b']);
    assert.match(unusable[0]!.reason, /more than one listed tool/);
  });

  test('an empty tool or origin name is unusable', () => {
    assert.equal(mcpToolName('', 'x').ok, false);
    assert.equal(photographMcpTools('o', [listed('')]).unusable.length, 1);
  });
});

describe('effects and digests of MCP tools', () => {
  test('only readOnlyHint: true makes a tool read; missing or non-boolean hints mean write', () => {
    const { tools } = photographMcpTools('o', [
      listed('reads', { annotations: { readOnlyHint: true } }),
      listed('silent'),
      listed('says_no', { annotations: { readOnlyHint: false } }),
      listed('sloppy', { annotations: { readOnlyHint: 'true' } as never }),
    ]);
    assert.deepEqual(
      tools.map((tool) => [tool.mcp_name, tool.effect]),
      [
        ['reads', 'read'],
        ['silent', 'write'],
        ['says_no', 'write'],
        ['sloppy', 'write'],
      ],
    );
  });

  test('the digest covers description, schema and every annotation', () => {
    const digest = (entry: McpListedTool) => photographMcpTools('o', [entry]).tools[0]!.digest;
    const base = listed('t', { annotations: { readOnlyHint: true } });
    assert.equal(digest(base), digest({ ...base }));
    assert.notEqual(digest(base), digest({ ...base, description: 'other' }));
    assert.notEqual(digest(base), digest({ ...base, inputSchema: { type: 'object' } }));
    assert.notEqual(
      digest(base),
      digest({ ...base, annotations: { readOnlyHint: true, destructiveHint: true } }),
    );
  });

  test('no annotations and empty annotations photograph alike', () => {
    const [bare] = photographMcpTools('o', [listed('t')]).tools;
    const [empty] = photographMcpTools('o', [listed('t', { annotations: {} })]).tools;
    assert.equal(bare!.digest, empty!.digest);
  });
});

test('diffPhotographs reports added, withdrawn and changed by name and digest, sorted', () => {
  const before = [
    { name: 'b', digest: '1' },
    { name: 'a', digest: '1' },
    { name: 'gone', digest: '1' },
  ];
  const after = [
    { name: 'a', digest: '2' },
    { name: 'b', digest: '1' },
    { name: 'new', digest: '1' },
  ];
  assert.deepEqual(diffPhotographs(before, after), {
    added: ['new'],
    withdrawn: ['gone'],
    changed: ['a'],
  });
});
