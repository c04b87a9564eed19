// Subagents (unstable: the `subagents` client capability of the SDK's schema.unstable.json). A parent session
// announces a child with `subagent_update`; the child's own traffic is ordinary `session/update` (and requests) with
// the child's session id. The shape may still change, so it is read strictly here: a malformed update is skipped
// with a log line, and an agent that never sends one changes nothing.
import { isAbsolute } from 'node:path';
import { z } from 'zod';

/** A display text, clipped; a value of another type is dropped (the schema's default-on-error), not the update. */
const text = z
  .string()
  .transform((s) => s.slice(0, 2000))
  .nullable()
  .optional()
  .catch(undefined);

/**
 * `subagent_update`, as far as this client uses it. Omitted fields keep their value; `null` clears them. The fields
 * the schema reads with a default on error (title, description, state, capabilities) are dropped when malformed, so
 * the child is still announced (over v2, registering children is a baseline); a bad session id skips the update.
 */
export const SubagentUpdate = z.object({
  sessionUpdate: z.literal('subagent_update'),
  sessionId: z.string().min(1).max(1000),
  title: text,
  description: text,
  state: z
    .looseObject({ state: z.string().max(100) })
    .nullable()
    .optional()
    .catch(undefined),
  capabilities: z
    .looseObject({ cancel: z.looseObject({}).nullable().optional().catch(undefined) })
    .nullable()
    .optional()
    .catch(undefined),
  cwd: z.string().max(4096).nullable().optional(),
  additionalDirectories: z.array(z.string().max(4096)).max(64).nullable().optional(),
});
export type SubagentUpdate = z.infer<typeof SubagentUpdate>;

/** What the parent knows of one child: its display metadata, its work state, and what the client may do to it. */
export interface SubagentInfo {
  readonly sessionId: string;
  readonly title?: string;
  readonly description?: string;
  /** `running`, `idle`, `requires_action`, `unknown`, or an agent's own; absent while unconfirmed. */
  readonly state?: string;
  readonly canCancel: boolean;
  readonly cwd?: string;
  /** More roots the agent named for the child; absent while it inherits its parent's. */
  readonly additionalDirectories?: readonly string[];
}

/** The info after `update` (a patch: omitted keeps, null clears). */
export function applySubagentUpdate(previous: SubagentInfo | undefined, update: SubagentUpdate): SubagentInfo {
  const pick = <K extends 'title' | 'description' | 'cwd'>(key: K): string | undefined => {
    const value = update[key];
    return value === undefined ? previous?.[key] : (value ?? undefined);
  };
  const title = pick('title');
  const description = pick('description');
  const cwd = pick('cwd');
  const state = update.state === undefined ? previous?.state : (update.state?.state ?? undefined);
  const canCancel = update.capabilities === undefined ? (previous?.canCancel ?? false) : update.capabilities?.cancel != null;
  const directories = update.additionalDirectories === undefined ? previous?.additionalDirectories : (update.additionalDirectories ?? undefined);
  return {
    sessionId: update.sessionId,
    ...(title ? { title } : {}),
    ...(description ? { description } : {}),
    ...(state ? { state } : {}),
    canCancel,
    ...(cwd ? { cwd } : {}),
    ...(directories ? { additionalDirectories: directories } : {}),
  };
}

/** Where a child works, as the schema has it inherit: its folder and its more roots, each its own or its parent's. */
export interface ChildScope {
  readonly cwd: string;
  /** Undefined while inherited from the chat's own session (the workspace's folders). */
  readonly directories?: readonly string[];
}

/** At most this many roots named for one child are used (each is resolved on every check). */
const MAX_CHILD_ROOTS = 16;

/** A child's scope from its parent's and what the agent named for it; paths that are not absolute are not taken. */
export function childScope(parent: ChildScope, info: SubagentInfo | undefined): ChildScope {
  const cwd = info?.cwd !== undefined && isAbsolute(info.cwd) ? info.cwd : parent.cwd;
  const named = info?.additionalDirectories;
  const directories = named ? named.filter((d) => isAbsolute(d)).slice(0, MAX_CHILD_ROOTS) : parent.directories;
  return directories ? { cwd, directories } : { cwd };
}

/** The roots that narrow a child's path policy: its folder and its more roots, once any were named in its line. */
export function scopeRoots(scope: ChildScope): readonly string[] | undefined {
  return scope.directories ? [scope.cwd, ...scope.directories] : undefined;
}

/** At most this many children per parent; more are skipped with a log line. */
export const MAX_SUBAGENTS = 32;

/** What a session holds of a child's model: its changes, and what waits in it for the user. */
export interface ChildModel {
  onDidChange(listener: () => void): { dispose(): void };
  questionsInTree(): number;
  readonly permissions: { readonly length: number };
  readonly elicitations: { readonly waiting: number };
  dispose(): void;
}

/**
 * The children a session announced (`subagent_update`), each with a model of its own for its traffic, at most
 * MAX_SUBAGENTS. Whatever changes in a child is a change of the parent (`changed`). The parent disposes them.
 */
export class SessionChildren<M extends ChildModel> {
  private readonly children = new Map<string, { info: SubagentInfo; model: M; listening: { dispose(): void } }>();

  constructor(
    private readonly create: (sessionId: string) => M,
    private readonly changed: () => void,
    /** A child was announced or its metadata changed. */
    private readonly noted: (sessionId: string) => void = () => {},
  ) {}

  /** The children announced so far, oldest first. */
  get all(): readonly { readonly info: SubagentInfo; readonly model: M }[] {
    return [...this.children.values()];
  }

  /** Announces a child or patches its metadata. Returns its model, or undefined past the bound on children. */
  note(update: SubagentUpdate): M | undefined {
    const known = this.children.get(update.sessionId);
    if (!known && this.children.size >= MAX_SUBAGENTS) return undefined;
    const info = applySubagentUpdate(known?.info, update);
    if (known) {
      known.info = info;
    } else {
      const model = this.create(update.sessionId);
      const listening = model.onDidChange(() => this.changed());
      this.children.set(update.sessionId, { info, model, listening });
    }
    this.changed();
    this.noted(update.sessionId);
    return this.children.get(update.sessionId)?.model;
  }

  /** The questions held in the children and every subagent under them. */
  questions(): number {
    let count = 0;
    for (const child of this.children.values()) count += child.model.questionsInTree();
    return count;
  }

  /** Permissions and questions waiting in the children. */
  get waiting(): number {
    let waiting = 0;
    for (const child of this.children.values()) waiting += child.model.permissions.length + child.model.elicitations.waiting;
    return waiting;
  }

  dispose(): void {
    for (const child of this.children.values()) {
      child.listening.dispose();
      child.model.dispose();
    }
    this.children.clear();
  }
}
