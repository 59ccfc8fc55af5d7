import { messageFrame } from '../room-events';
import { encodeFrame } from '@taco/protocol';
import { messageNumber, RoomFeed } from './room-feed';

describe('RoomFeed', () => {
  it('takes each message once, in order or after a gap, and drops what came before it subscribed', () => {
    const feed = new RoomFeed('e1', 10, 0);
    expect(feed.take('e1', 9)).toBe(false);
    expect(feed.take('e1', 11)).toBe(true);
    expect(feed.take('e1', 11)).toBe(false);
    // 12 and 13 were missed; 14 came live.
    expect(feed.take('e1', 14)).toBe(true);
    expect(feed.resumePoint).toEqual({ epoch: 'e1', after: 11 });
    // The gap fill brings 12 to 14: 14 is not delivered again.
    expect([12, 13, 14].map((seq) => feed.take('e1', seq))).toEqual([true, true, false]);
    expect(feed.resumePoint).toEqual({ epoch: 'e1', after: 14 });
  });

  it('leaves a gap below a live message to history, whatever else comes live to fill it', () => {
    const feed = new RoomFeed('e1', 10, 0);
    expect(feed.takeLive('e1', 11)).toBe('deliver');
    // 12 and 13 went out while the subscription moved to a promoted master; 14 came through it.
    expect(feed.takeLive('e1', 14)).toBe('deliver');
    // The old master wakes and publishes what the cluster is about to discard.
    expect(feed.takeLive('e1', 12)).toBe('late');
    expect(feed.takeLive('e1', 14)).toBe('drop');
    expect(feed.resumePoint).toEqual({ epoch: 'e1', after: 11 });
    // History fills the gap.
    expect([12, 13, 14].map((seq) => feed.take('e1', seq))).toEqual([true, true, false]);
    expect(feed.takeLive('e1', 15)).toBe('deliver');
    // A new epoch is a new sequence: nothing in it is late yet.
    expect(feed.takeLive('e2', 3)).toBe('deliver');
    expect(feed.takeLive('e2', 1)).toBe('late');
  });

  it('starts again with a new epoch, and from nothing for a room that had no sequence', () => {
    const feed = new RoomFeed(null, 0, 0);
    expect(feed.take('e1', 1)).toBe(true);
    expect(feed.take('e2', 1)).toBe(true);
    expect(feed.resumePoint).toEqual({ epoch: 'e2', after: 1 });
  });

  it('skips messages history no longer holds', () => {
    const feed = new RoomFeed('e1', 3, 0);
    expect(feed.take('e1', 9)).toBe(true);
    feed.skipTo('e1', 7);
    expect(feed.resumePoint).toEqual({ epoch: 'e1', after: 7 });
    expect(feed.take('e1', 8)).toBe(true);
    expect(feed.resumePoint).toEqual({ epoch: 'e1', after: 9 });
  });
});

describe('messageNumber', () => {
  const message = {
    sender: 'Ann',
    body: 'tricky "seq":5,"epoch":"x" body',
    timestamp: 1.5,
    seq: 42,
  };

  it('reads the epoch and seq of a message frame, whatever its body holds', () => {
    for (const clientId of [undefined, '"seq":7']) {
      const payload = Buffer.from(
        encodeFrame(messageFrame('teal-otter', message, 'Ab_-9z', clientId)),
      );
      expect(messageNumber(payload)).toEqual({ epoch: 'Ab_-9z', seq: 42 });
    }
  });

  it('is null for any other frame', () => {
    const typing = encodeFrame({ type: 2, room: 'teal-otter', sender: 'Ann', typing: true });
    expect(messageNumber(Buffer.from(typing))).toBeNull();
    expect(messageNumber(Buffer.from(''))).toBeNull();
  });

  it('is null for a message frame cut short before its epoch', () => {
    const text = encodeFrame(messageFrame('teal-otter', message, 'Ab_-9z'));
    const cut = text.lastIndexOf(',"epoch":"');
    for (const end of [cut, cut + 3, cut + 9]) {
      expect(messageNumber(Buffer.from(text.slice(0, end)))).toBeNull();
    }
  });
});
