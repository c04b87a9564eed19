// A question from the agent. A form: one labelled control per field (text with its format, number, whole number,
// checkbox, a list to pick one, boxes to tick several), required marks, and the messages of invalid fields before
// Submit; Submit, Decline and Cancel. A url: the whole address with its host emphasized, never fetched or
// previewed here; Open opens it in the browser on the user's click, then the card waits for the agent.
import { useState } from 'preact/hooks';
import { fieldValue, type ElicitationFieldView, type ElicitationView, type FieldInput } from '../../src/chat/protocol';
import { answerElicitation, openElicitationUrl } from '../intents';
import { t } from '../l10n';

/** `sessionId`: a subagent's question, answered on its session (the chat's own otherwise). */
export function Elicitation({ question, agent, sessionId }: { question: ElicitationView; agent: string; sessionId?: string }) {
  return (
    <section class="elicitation" role="group" aria-label={t('{0} asks: {1}', agent, question.message)}>
      {/* A live region: a screen reader hears the question when it appears. */}
      <p class="elicitation-message" role="status">
        <span class="codicon codicon-question" aria-hidden="true" /> {question.message}
      </p>
      {question.form && <Form question={question} form={question.form} sessionId={sessionId} />}
      {question.url && <UrlQuestion id={question.id} url={question.url} sessionId={sessionId} />}
    </section>
  );
}

function initial(field: ElicitationFieldView): FieldInput | undefined {
  if (field.default === undefined) return field.kind === 'boolean' ? false : field.kind === 'multiselect' ? [] : undefined;
  return typeof field.default === 'number' ? String(field.default) : field.default;
}

function Form({
  question,
  form,
  sessionId,
}: {
  question: ElicitationView;
  form: NonNullable<ElicitationView['form']>;
  sessionId: string | undefined;
}) {
  const [values, setValues] = useState<Record<string, FieldInput>>(() => {
    const start: Record<string, FieldInput> = {};
    for (const field of form.fields) {
      const value = initial(field);
      if (value !== undefined) start[field.name] = value;
    }
    return start;
  });
  const [touched, setTouched] = useState<Record<string, boolean>>({});
  const [tried, setTried] = useState(false);
  const errors = Object.fromEntries(form.fields.map((field) => [field.name, fieldValue(t, field, values[field.name]).error]));
  const set = (name: string, value: FieldInput) => setValues((v) => ({ ...v, [name]: value }));
  const submit = (event: Event) => {
    event.preventDefault();
    setTried(true);
    if (Object.values(errors).some((e) => e !== undefined)) return;
    answerElicitation(question.id, 'accept', values, sessionId);
  };
  const answerable = form.unsupported.length === 0;
  return (
    <form class="elicitation-form" onSubmit={submit} noValidate>
      {form.title && <p class="elicitation-title">{form.title}</p>}
      {form.fields.map((field) => {
        const error = tried || touched[field.name] ? errors[field.name] : undefined;
        const id = `q${question.id}-${field.name}`;
        return (
          <Field
            key={field.name}
            id={id}
            field={field}
            value={values[field.name]}
            error={error}
            onChange={(value) => set(field.name, value)}
            onBlur={() => setTouched((v) => ({ ...v, [field.name]: true }))}
          />
        );
      })}
      {!answerable && (
        <p class="elicitation-error" role="alert">
          {t('This question has fields the chat cannot show ({0}); decline or cancel it.', form.unsupported.join(', '))}
        </p>
      )}
      <div class="elicitation-actions">
        <button type="submit" class="primary" disabled={!answerable}>
          {t('Submit')}
        </button>
        <button type="button" class="secondary" onClick={() => answerElicitation(question.id, 'decline', undefined, sessionId)}>
          {t('Decline')}
        </button>
        <button type="button" class="secondary" onClick={() => answerElicitation(question.id, 'cancel', undefined, sessionId)}>
          {t('Cancel')}
        </button>
      </div>
    </form>
  );
}

// eslint-disable-next-line max-lines-per-function -- one render per kind of field, side by side
function Field(props: {
  id: string;
  field: ElicitationFieldView;
  value: FieldInput | undefined;
  error: string | undefined;
  onChange: (value: FieldInput) => void;
  onBlur: () => void;
}) {
  const { id, field, value, error } = props;
  const describedBy = [field.description ? `${id}-desc` : '', error ? `${id}-err` : ''].filter(Boolean).join(' ') || undefined;
  const label = (
    <>
      {field.label}
      {field.required && (
        <span class="required" aria-hidden="true">
          {' *'}
        </span>
      )}
    </>
  );
  const help = (
    <>
      {field.description && (
        <span class="field-description" id={`${id}-desc`}>
          {field.description}
        </span>
      )}
      {error && (
        <span class="field-error" id={`${id}-err`} role="alert">
          {error}
        </span>
      )}
    </>
  );
  if (field.kind === 'boolean') {
    return (
      <div class="field">
        <label>
          <input
            type="checkbox"
            id={id}
            checked={value === true}
            aria-describedby={describedBy}
            onChange={(e) => props.onChange(e.currentTarget.checked)}
            onBlur={props.onBlur}
          />{' '}
          {label}
        </label>
        {help}
      </div>
    );
  }
  if (field.kind === 'multiselect') {
    const picked = Array.isArray(value) ? value : [];
    return (
      <fieldset class="field" aria-describedby={describedBy} aria-required={field.required}>
        <legend>{label}</legend>
        {(field.options ?? []).map((option) => (
          <label key={option.value} class="option">
            <input
              type="checkbox"
              checked={picked.includes(option.value)}
              onChange={(e) => props.onChange(e.currentTarget.checked ? [...picked, option.value] : picked.filter((v) => v !== option.value))}
              onBlur={props.onBlur}
            />{' '}
            {option.title}
          </label>
        ))}
        {help}
      </fieldset>
    );
  }
  const common = {
    id,
    'aria-describedby': describedBy,
    'aria-required': field.required,
    'aria-invalid': error !== undefined,
    onBlur: props.onBlur,
  };
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {field.kind === 'select' ? (
        <select {...common} value={typeof value === 'string' ? value : ''} onChange={(e) => props.onChange(e.currentTarget.value)}>
          <option value="">{t('Choose…')}</option>
          {(field.options ?? []).map((option) => (
            <option key={option.value} value={option.value}>
              {option.title}
            </option>
          ))}
        </select>
      ) : (
        <input
          {...common}
          // One of text, number, date, email: the union preact types per input type is cast to one of them.
          type={
            (field.kind === 'number' || field.kind === 'integer'
              ? 'number'
              : field.format === 'date'
                ? 'date'
                : field.format === 'email'
                  ? 'email'
                  : 'text') as 'text'
          }
          {...(field.kind === 'integer' ? { step: 1 } : field.kind === 'number' ? { step: 'any' } : {})}
          value={typeof value === 'string' ? value : ''}
          onInput={(e) => props.onChange(e.currentTarget.value)}
        />
      )}
      {help}
    </div>
  );
}

function UrlQuestion({ id, url, sessionId }: { id: number; url: NonNullable<ElicitationView['url']>; sessionId: string | undefined }) {
  const at = url.host ? url.hostAt : -1;
  return (
    <div class="elicitation-url">
      <p class="url" aria-label={t('Address: {0}', url.url)}>
        {at >= 0 ? (
          <>
            {url.url.slice(0, at)}
            <strong>{url.host}</strong>
            {url.url.slice(at + url.host.length)}
          </>
        ) : (
          url.url
        )}
      </p>
      {url.otherHost && <p class="quiet">{t('The host is also written {0}.', url.otherHost)}</p>}
      {url.opened ? (
        <p class="quiet" role="status">
          {t('Opened in your browser. Waiting for the agent to hear it is done…')}
        </p>
      ) : null}
      <div class="elicitation-actions">
        {!url.opened && (
          <button type="button" class="primary" onClick={() => openElicitationUrl(id, sessionId)}>
            {t('Open')}
          </button>
        )}
        <button type="button" class="secondary" onClick={() => answerElicitation(id, 'cancel', undefined, sessionId)}>
          {t('Cancel')}
        </button>
      </div>
    </div>
  );
}
