/** The last step of both mapping steps (CSV and HL7): name the profile, save it, import the file again with it. */
export function SaveProfileForm(props: {
  name: string;
  onName: (name: string) => void;
  saving: boolean;
  blocked: boolean;
  onSave: () => Promise<void>;
}) {
  const { name, onName, saving, blocked, onSave } = props;
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
      <button type="submit" disabled={saving || !name.trim() || blocked}>
        {saving ? 'Saving…' : 'Save profile and import again'}
      </button>
    </form>
  );
}
