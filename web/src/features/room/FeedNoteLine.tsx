import type { FeedNote } from '../feedNotes/feedNotesSlice';

/** A line in the feed that is not a message ("Bob is now Bobby"). */
export function FeedNoteLine({ note }: { note: FeedNote }) {
  return (
    <li className="feed-note-line">
      <span>{note.text}</span>
    </li>
  );
}
