import { describeFailure, type FailureText } from './describe-failure.js';

/** Shows a failure as an alert, so screen readers announce it as soon as it appears. */
export function ErrorMessage({ error }: { error: unknown }) {
  return <FailureMessage text={describeFailure(error)} />;
}

/** A failure already put in words (`describeFailure`, or a screen's own sentence for it), as an alert. */
export function FailureMessage({ text: { summary, detail, fields } }: { text: FailureText }) {
  return (
    <div role="alert" className="message message-error">
      <p className="message-summary">{summary}</p>
      {detail && detail !== summary ? <p className="message-detail">{detail}</p> : null}
      {fields?.length ? (
        <ul className="message-fields">
          {fields.map(({ field, message }) => (
            <li key={`${field}:${message}`}>
              <code>{field}</code>: {message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
