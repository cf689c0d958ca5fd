/**
 * A grant's scope as a person reads it: a short name for lists, and for the decision form what it
 * allows, what it leaves free and a call it would let through.
 */
import { callSummary } from './call-reading.js';
import { fileTools, inertArguments, isGrantScope, type GrantScope } from './grant-scopes.js';

export interface ScopeExplanation {
  /** What it covers, in a line. */
  allows: string;
  /** What a covered call may hold that the approver did not see. */
  free: string;
  /** A call it would let through, as one line. */
  example: string;
}

const listed = (names: readonly string[]) => names.join(' and ');

/** The file an any-content scope names (only offered for a path given as a string). */
function pathOf(scope: GrantScope): string {
  const path = scope.arguments[fileTools[scope.tool]?.path ?? ''];
  return typeof path === 'string' ? path : '';
}

/** The scope in a line: `Bash: exactly npm test`, `Write: /repo/ci.yml, any content`. */
export function scopeText(scope: GrantScope): string {
  switch (scope.kind) {
    case 'exact': {
      const { command, ...others } = scope.arguments;
      const rest = Object.keys(others).length > 0 ? `, with ${JSON.stringify(others)}` : '';
      return scope.tool === 'Bash' && typeof command === 'string'
        ? `Bash: exactly ${command}${rest}`
        : `${scope.tool}: exactly ${callSummary(scope.tool, scope.arguments)}`;
    }
    case 'any_content':
      return `${scope.tool}: ${pathOf(scope)}, any content`;
  }
}

/** A stored scope in a line; one of an older shape, which covers nothing, says so. */
export function grantScopeShown(tool: string, scope: unknown): string {
  return isGrantScope(scope) ? scopeText(scope) : `${tool}: an earlier scope, which covers nothing`;
}

/** What the scope allows and leaves free, with a call it would let through. */
export function explainScope(scope: GrantScope): ScopeExplanation {
  const inert = inertArguments[scope.tool] ?? [];
  const inertNote = inert.length > 0 ? `only its ${listed(inert)} may differ` : '';
  switch (scope.kind) {
    case 'exact':
      return {
        allows: `this same call again: the same tool, every argument the same${
          scope.tool === 'Bash' ? ', the command line word for word' : ''
        }`,
        free:
          scope.tool === 'Bash'
            ? `${inertNote}; the files the line runs or reads (a script, package.json) are read as they are when it runs, in whatever directory the agent's shell is in then`
            : inertNote || 'nothing: any other argument or value asks again',
        example: callSummary(scope.tool, scope.arguments),
      };
    case 'any_content': {
      const path = pathOf(scope);
      return {
        allows: `${scope.tool} on exactly ${path}, with any content`,
        free: `the content: whatever the agent writes to this path next is written without being shown to you`,
        example: `${scope.tool} ${path} with other content`,
      };
    }
  }
}
