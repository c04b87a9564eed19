import * as assert from 'node:assert/strict';
import { mock } from 'node:test';
import type * as vscode from 'vscode';
import { INITIAL_PARTS, type HostMessage, type StateFrom } from '../../../src/chat/protocol';
import { ViewSync, type HeadMessage, type StateMessage, type UpdateMessage } from '../../../src/chat/viewSync';

/** A page that takes posts and says each was delivered when the test says so. */
class Page {
  readonly posts: HostMessage[] = [];
  private readonly waiting: ((taken: boolean) => void)[] = [];

  readonly webview = {
    postMessage: (message: HostMessage): Thenable<boolean> => {
      this.posts.push(message);
      return new Promise<boolean>((resolve) => this.waiting.push(resolve));
    },
  } as unknown as vscode.Webview;

  /** Delivers the oldest post still on its way (or says it was not taken), and lets what follows from it run. */
  async deliver(taken = true): Promise<void> {
    this.waiting.shift()?.(taken);
    await settled();
  }

  types(): string[] {
    return this.posts.map((p) => p.type);
  }
}

function source(from?: Omit<StateFrom, 'seq'>) {
  const heads: number[] = [];
  /** The entries each update carried, by index. */
  const updated: number[][] = [];
  return {
    heads,
    updated,
    update: (entries: ReadonlySet<number>): UpdateMessage => {
      updated.push([...entries]);
      return { type: 'update', entries: [] };
    },
    state: (seq?: number): StateMessage => ({
      type: 'state',
      agent: 'Fixture',
      earlier: [],
      entries: [],
      ...INITIAL_PARTS,
      attachments: [],
      ...(from && seq !== undefined ? { from: { ...from, seq } } : {}),
    }),
    head: (f: StateFrom): HeadMessage => {
      heads.push(f.seq);
      return { type: 'head', seq: f.seq, earlier: [], entries: [] };
    },
  };
}

/** A chat page that has loaded and taken its first state. */
async function loaded() {
  const page = new Page();
  const src = source();
  const sync = new ViewSync(page.webview, src);
  sync.load();
  await page.deliver();
  return { page, src, sync };
}

/** Lets the promise callbacks that are due run (the clock is the test's: no timer fires meanwhile). */
const settled = () => new Promise((resolve) => setImmediate(resolve));
/** A frame of the clock, and what is due then. */
async function frame(): Promise<void> {
  mock.timers.tick(16);
  await settled();
}

describe('keeping the chat page in step', () => {
  beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 }));
  afterEach(() => mock.timers.reset());

  it('posts a long chat’s head once its state was delivered, and never the head of a state since replaced', async () => {
    const page = new Page();
    const sync = new ViewSync(page.webview, source({ earlier: 0, entries: 100 }));
    sync.load();
    sync.load(); // the page loaded again before the first state was delivered
    await page.deliver();
    assert.deepEqual(page.types(), ['state', 'state'], 'the first state’s head is not posted: a newer state replaced it');
    await page.deliver();
    assert.deepEqual(page.types(), ['state', 'state', 'head']);
    assert.equal((page.posts[2] as HeadMessage).seq, (page.posts[1] as StateMessage).from?.seq);
    // A page that shows the chat already gets a change of the whole chat whole: it keeps what its user scrolled to.
    sync.postState();
    assert.equal((page.posts[3] as StateMessage).from, undefined);
    await page.deliver();
    assert.deepEqual(page.types(), ['state', 'state', 'head', 'state']);
    sync.dispose();
  });

  it('waits for an update to be delivered before the next, but posts the end of a turn at once', async () => {
    const { page, sync } = await loaded();
    sync.changed('session');
    await frame();
    assert.deepEqual(page.types(), ['state', 'update']);
    sync.changed('session');
    await frame();
    await frame();
    assert.deepEqual(page.types(), ['state', 'update'], 'the next update waits while the last is on its way');
    sync.changed('turn', true);
    assert.deepEqual(page.types(), ['state', 'update', 'update'], 'the turn’s end goes at once, with what waited');
    // The first update's delivery no longer lets another go: only the last one's does.
    sync.changed('session');
    await page.deliver();
    await frame();
    assert.deepEqual(page.types(), ['state', 'update', 'update']);
    await page.deliver();
    await frame();
    assert.deepEqual(page.types(), ['state', 'update', 'update', 'update']);
    sync.dispose();
  });

  it('posts a frame apart at reading pace, and 50 ms apart while a burst lasts', async () => {
    const { page, src, sync } = await loaded();
    // A stream of tokens: a change or two a frame, each posted the next frame.
    for (let i = 0; i < 3; i++) {
      sync.entryChanged(1);
      await frame();
      await page.deliver();
    }
    assert.equal(src.updated.length, 3);
    // A burst: far more changes than anyone reads in a frame.
    for (let i = 0; i < 200; i++) sync.entryChanged(i % 5);
    await frame();
    assert.equal(src.updated.length, 4, 'the burst’s first update goes a frame after it began');
    await page.deliver();
    // A change marked 24 ms after the burst's update goes 50 ms after that update, not a frame after the change (40).
    mock.timers.tick(24);
    await settled();
    sync.entryChanged(7);
    mock.timers.tick(25);
    await settled();
    assert.equal(src.updated.length, 4, 'the next waits longer than a frame after an update that carried a burst');
    mock.timers.tick(1);
    await settled();
    assert.deepEqual(src.updated.at(-1), [7], 'and goes 50 ms after it');
    await page.deliver();
    // That update carried one change: the burst is over, and the next goes a frame later again.
    sync.entryChanged(8);
    await frame();
    assert.deepEqual(src.updated.at(-1), [8]);
    // A wall clock set back (by 10 s) after a burst's update does not hold the next one for longer than the gap.
    for (let i = 0; i < 200; i++) sync.entryChanged(i % 5);
    await page.deliver();
    await frame();
    await page.deliver();
    mock.timers.setTime(Date.now() - 10_000);
    sync.entryChanged(6);
    mock.timers.tick(50);
    await settled();
    assert.deepEqual(src.updated.at(-1), [6]);
    // The end of a turn never waits.
    for (let i = 0; i < 200; i++) sync.entryChanged(9);
    await page.deliver();
    await frame();
    await page.deliver();
    sync.changed('turn', true);
    assert.equal(page.types().at(-1), 'update');
    assert.equal(src.updated.length, 10, 'the turn’s end went at once, though the update before it carried a burst');
    sync.dispose();
  });

  it('sends again, with the next update, what an update carried that the page did not take, so no entry goes missing', async () => {
    const { page, src, sync } = await loaded();
    sync.entryChanged(2);
    sync.entryChanged(3);
    await frame();
    assert.deepEqual(src.updated, [[2, 3]]);
    await page.deliver(false); // VS Code could not hand it over
    mock.timers.tick(250);
    await settled();
    assert.deepEqual(src.updated.at(-1), [2, 3], 'the entries it carried go again a while later');
    // A page that takes none (hidden): a few tries, then nothing more until something changes.
    for (let i = 0; i < 12; i++) {
      await page.deliver(false);
      mock.timers.tick(250);
      await settled();
    }
    assert.equal(src.updated.length, 9, 'the first post and 8 more, no more');
    sync.entryChanged(4);
    await frame();
    assert.deepEqual(src.updated.at(-1), [2, 3, 4], 'then they go with the next update');
    await page.deliver();
    sync.entryChanged(5);
    await frame();
    assert.deepEqual(src.updated.at(-1), [5], 'once taken, only what changed');
    sync.dispose();
  });
});
