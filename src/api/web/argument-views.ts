/**
 * A call's arguments rendered for a person deciding it: a shell command with the commands the
 * policy's parser found, an edit as a diff, a file write as its path and content, any other tool
 * argument by argument beside its schema title; the raw JSON one click away. Every piece of text
 * passes through `visibleText` (hidden characters shown as their codes) and the html tag.
 */
import type { CallReading, FileEdit } from '../../domain/approvals/call-reading.js';
import type { DiffLine } from '../../domain/approvals/line-diff.js';
import type { SimpleCommand } from '../../domain/policy/shell-command.js';
import { wordText, type ShellWord } from '../../domain/policy/shell-words.js';
import type { FrozenTool } from '../../domain/tools/tools.js';
import { html, type SafeHtml } from './html.js';
import { visibleText } from './visible-text.js';

/** Past these, a value shows its start and a "show all" that opens the rest. */
const foldLines = 12;
const foldChars = 1200;

const shown = (text: string) => visibleText(text).text;

/** Text with its real line breaks; a long one folded behind "show all". */
function textBlock(text: string, className = 'text'): SafeHtml {
  const lines = text.split('\n');
  const long = lines.length > foldLines || text.length > foldChars;
  if (!long) return html`<pre class="${className}">${shown(text)}</pre>`;
  const start = lines.slice(0, foldLines).join('\n').slice(0, foldChars);
  return html`<div class="folded">
    <pre class="${className}">${shown(start)}</pre>
    <details class="show-all">
      <summary>Show all (${lines.length} lines, ${text.length} characters)</summary>
      <pre class="${className}">${shown(text)}</pre>
    </details>
  </div>`;
}

function word(w: ShellWord): SafeHtml {
  const text = wordText(w);
  return text === undefined
    ? html`<span class="unknown">(known only when it runs)</span>`
    : html`<code>${shown(text)}</code>`;
}

function commandNotes(command: SimpleCommand): string[] {
  const notes: string[] = [];
  if (command.role === 'wrapper') notes.push('a wrapper: it runs the next command');
  if (command.role === 'transparent-wrapper') notes.push('a wrapper that changes nothing');
  if (command.opaque) notes.push(`runs code the gate cannot see: ${command.opaque}`);
  if (command.environment) notes.push('variables set or directory changed for it');
  if (command.writesFile) notes.push('writes a file');
  return notes;
}

function bashView(reading: CallReading & { kind: 'bash' }, rule: SafeHtml): SafeHtml {
  const { analysis } = reading;
  const doubts = [analysis.doubt, analysis.allowDoubt].filter((d): d is string => d !== null);
  return html`<h3>Command line</h3>
    ${textBlock(reading.command, 'command')}
    <h3>Commands it runs</h3>
    ${
      analysis.commands.length === 0
        ? html`<p class="meta">The parser found no command in it.</p>`
        : html`<ol class="commands" id="parsed-commands">
            ${analysis.commands.map(
              (command) =>
                html`<li>
                  ${word(command.program)} ${command.args.map((arg) => html` ${word(arg)}`)}
                  ${commandNotes(command).map((note) => html`<span class="note">${note}</span>`)}
                </li>`,
            )}
          </ol>`
    }
    ${doubts.map((doubt) => html`<p class="uncertain" role="note">Uncertain: ${doubt}</p>`)}
    <p class="meta">Asked by ${rule}.</p>`;
}

const diffMark = { same: ' ', removed: '-', added: '+' } as const;

function diffView(lines: readonly DiffLine[]): SafeHtml {
  // One block per line: the lines break by layout, so no whitespace is added to what they say.
  const rows = lines.map(
    (line) =>
      html`<span class="line ${line.kind}">${diffMark[line.kind]}${shown(line.text)}</span>`,
  );
  return html`<pre class="diff">${rows}</pre>`;
}

function editView(reading: CallReading & { kind: 'edit' }): SafeHtml {
  return html`<h3>File</h3>
    <p><code>${shown(reading.path)}</code></p>
    ${reading.edits.map(
      (edit: FileEdit, i) =>
        html`<h3>
            ${reading.edits.length > 1 ? `Change ${i + 1} of ${reading.edits.length}` : 'Change'}
            ${edit.replace_all && html`<span class="meta">(every occurrence)</span>`}
          </h3>
          ${diffView(edit.diff)}`,
    )}`;
}

function writeView(reading: CallReading & { kind: 'write' }): SafeHtml {
  return html`<h3>File</h3>
    <p><code>${shown(reading.path)}</code></p>
    <h3>Content</h3>
    ${textBlock(reading.content, 'content')}`;
}

function schemaTitle(tool: FrozenTool | undefined, name: string): string | undefined {
  const properties = tool?.input_schema.properties;
  if (typeof properties !== 'object' || properties === null) return undefined;
  const property = (properties as Record<string, unknown>)[name];
  const title = typeof property === 'object' && property !== null && 'title' in property;
  return title && typeof property.title === 'string' ? property.title : undefined;
}

function genericView(args: Record<string, unknown>, tool: FrozenTool | undefined): SafeHtml {
  const entries = Object.entries(args);
  if (entries.length === 0) return html`<p class="meta">No arguments.</p>`;
  return html`<dl class="arguments">
    ${entries.map(([name, value]) => {
      const title = schemaTitle(tool, name);
      return html`<dt>
          <code>${shown(name)}</code
          >${title && html`<br /><span class="title">${shown(title)}</span>`}
        </dt>
        <dd>
          ${typeof value === 'string' ? textBlock(value) : textBlock(JSON.stringify(value, null, 2), 'json')}
        </dd>`;
    })}
  </dl>`;
}

/** An MCP tool's frozen description: what the approver was told the tool does. */
function toolDescription(tool: FrozenTool | undefined): SafeHtml {
  if (!tool?.description) return html``;
  return html`<h3>What the tool says it does</h3>
    <div id="tool-description">${textBlock(tool.description)}</div>`;
}

/** The arguments rendered for their tool, with the raw JSON behind one click. */
export function argumentViews(input: {
  reading: CallReading;
  args: Record<string, unknown>;
  tool: FrozenTool | undefined;
  rule: SafeHtml;
}): SafeHtml {
  const { reading, args, tool } = input;
  const view =
    reading.kind === 'bash'
      ? bashView(reading, input.rule)
      : reading.kind === 'edit'
        ? editView(reading)
        : reading.kind === 'write'
          ? writeView(reading)
          : html`${toolDescription(tool)}${genericView(args, tool)}`;
  return html`${view}
    <details class="raw" id="raw-json">
      <summary>Raw JSON</summary>
      <pre><code>${shown(JSON.stringify(args, null, 2))}</code></pre>
    </details>`;
}
