import { useId } from 'react';

/** The last step of both mapping steps (CSV and HL7): name the profile, save it, import the file again with it. */
export function SaveProfileForm(props: {
  name: string;
  onName: (name: string) => void;
  saving: boolean;
  blocked: boolean;
  onSave: () => Promise<void>;
  /** What picks the profile for later files: a CSV header, or an HL7 sender (its MSH-3 and MSH-4). */
  pickedBy: 'header' | 'sender';
}) {
  const { name, onName, saving, blocked, onSave, pickedBy } = props;
  const hintId = useId();
  const unnamed = !name.trim();
  return (
    <form
      className="search-form"
      onSubmit={(event) => {
        event.preventDefault();
        void onSave();
      }}
    >
      <label>
        Profile name <input value={name} onChange={(event) => onName(event.target.value)} required maxLength={80} />
      </label>
      <button
        type="submit"
        disabled={saving || unnamed || blocked}
        aria-describedby={unnamed || blocked ? hintId : undefined}
      >
        {saving ? 'Saving…' : 'Save profile and import again'}
      </button>
      {/* A disabled button says why: otherwise the mapping looks finished and nothing happens. */}
      {unnamed || blocked ? (
        <span id={hintId} className="hint">
          {blocked
            ? 'Correct the lines marked “Not read” above first.'
            : `Name the profile first (the clinic system's name, say): ${pickedBy === 'header' ? 'files with this header' : "this sender's files and messages"} will use it.`}
        </span>
      ) : null}
    </form>
  );
}
