import { EVENT_TYPES } from '../api.ts';

/** The labelled event-type picker every filter bar uses; `allLabel` adds a "no filter" choice. */
export function EventTypeSelect(props: {
  value: string;
  onChange: (value: string) => void;
  allLabel?: string;
}) {
  return (
    <label>
      Event type
      <select value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
        {props.allLabel ? <option value="">{props.allLabel}</option> : null}
        {EVENT_TYPES.map((t) => (
          <option key={t} value={t}>
            {t}
          </option>
        ))}
      </select>
    </label>
  );
}
