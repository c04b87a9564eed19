// What an owner holds until it is disposed: subscriptions, emitters, watchers, children. Owners dispose what they
// create, in one call; one item that throws does not keep the others alive.

/** Anything that can be disposed (VS Code's Disposable, vscode-jsonrpc's, an emitter, a child owner). */
export interface Disposable {
  dispose(): unknown;
}

export class DisposableStore implements Disposable {
  private items: Disposable[];
  private disposed = false;

  constructor(...items: Disposable[]) {
    this.items = items;
  }

  /** Holds `items` until the store is disposed; after that, they are disposed at once. */
  push(...items: Disposable[]): void {
    if (this.disposed) dispose(items);
    else this.items.push(...items);
  }

  /** Holds `item` (see push) and hands it back. */
  add<T extends Disposable>(item: T): T {
    this.push(item);
    return item;
  }

  /** Disposes what it holds now, and goes on holding what comes after. */
  clear(): void {
    const items = this.items;
    this.items = [];
    dispose(items);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.clear();
  }
}

/**
 * Disposes each of `items` (a copy is taken first: disposing one may remove it from a live collection), in order; the
 * first error is thrown once every one has been disposed. Owners use this, or a DisposableStore, never a loop of
 * their own that stops at the first error.
 */
export function disposeAll(items: Iterable<Disposable>): void {
  dispose([...items]);
}

function dispose(items: readonly Disposable[]): void {
  let failure: { error: unknown } | undefined;
  for (const item of items) {
    try {
      // eslint-disable-next-line no-restricted-syntax -- the one loop every owner's disposal goes through
      item.dispose();
    } catch (error) {
      failure ??= { error };
    }
  }
  if (failure) throw failure.error;
}
