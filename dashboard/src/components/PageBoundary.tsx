import { Component, type ComponentChildren, createContext } from 'preact';
import { ConsoleApiError } from '../api.ts';

/** Where a page's loads note the request ids of the answers it is showing (see useLoad). */
export interface ShownAnswers {
  show(loader: object, requestIds: readonly string[]): void;
  forget(loader: object): void;
}
export const ShownAnswersContext = createContext<ShownAnswers | undefined>(undefined);

interface State {
  failure?: { error: unknown; requestIds: readonly string[] };
}

/**
 * Around every page (main.tsx puts it there for each registered page, keyed by the page, and once
 * around the whole console): an error while rendering shows ErrorPage instead of a blank screen,
 * with the request id of the API answer the page was showing, if any.
 */
export class PageBoundary extends Component<{ children: ComponentChildren }, State> {
  override state: State = {};
  private readonly answers = new Map<object, readonly string[]>();
  private readonly shown: ShownAnswers = {
    show: (loader, requestIds) => this.answers.set(loader, requestIds),
    forget: (loader) => this.answers.delete(loader),
  };

  override componentDidCatch(error: unknown): void {
    console.error('The page failed to render:', error);
    const requestIds =
      error instanceof ConsoleApiError && error.requestId
        ? [error.requestId]
        : [...new Set([...this.answers.values()].flat())];
    this.setState({ failure: { error, requestIds } });
  }

  override render() {
    const { failure } = this.state;
    if (failure) {
      return <ErrorPage {...failure} onRetry={() => this.setState({ failure: undefined })} />;
    }
    return (
      <ShownAnswersContext.Provider value={this.shown}>{this.props.children}</ShownAnswersContext.Provider>
    );
  }
}

/** What went wrong, in words, the request id to quote, and a way back. */
function ErrorPage(props: { error: unknown; requestIds: readonly string[]; onRetry: () => void }) {
  const { error, requestIds } = props;
  const what =
    error instanceof ConsoleApiError
      ? `the API answered ${error.status} ${error.code}: ${error.message}`
      : error instanceof Error
        ? `${error.name}: ${error.message}`
        : String(error);
  return (
    <section class="error error-page" role="alert" aria-labelledby="error-page-title">
      <h2 id="error-page-title">This page could not be shown</h2>
      <p>Something failed while the console was showing it: {what}.</p>
      {requestIds.length > 0 ? (
        <p>
          {requestIds.length === 1 ? 'Request id' : 'Request ids'} of what it was showing (quote{' '}
          {requestIds.length === 1 ? 'it' : 'them'} to support):{' '}
          {requestIds.map((id, i) => (
            <span key={id}>
              {i > 0 ? ', ' : ''}
              <code class="request-id">{id}</code>
            </span>
          ))}
        </p>
      ) : null}
      <p class="actions">
        <button type="button" onClick={props.onRetry}>
          Try again
        </button>
        {/* A full load: a way back even when the console's own state is what failed. */}
        <a href="/overview">Back to the overview</a>
      </p>
    </section>
  );
}
