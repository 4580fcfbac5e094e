import { render } from 'preact';
import { useEffect } from 'preact/hooks';
import './styles.css';
import { signedIn } from './api.ts';
import { Layout } from './components/Layout.tsx';
import { PageBoundary } from './components/PageBoundary.tsx';
import { format } from './format.ts';
import { AuditPage } from './pages/AuditPage.tsx';
import { DecisionsPage } from './pages/DecisionsPage.tsx';
import { DispositionsPage } from './pages/DispositionsPage.tsx';
import { ListsPage } from './pages/ListsPage.tsx';
import { NetworkPage } from './pages/NetworkPage.tsx';
import { OverviewPage } from './pages/OverviewPage.tsx';
import { PrivacyPage } from './pages/PrivacyPage.tsx';
import { ReviewsPage } from './pages/ReviewsPage.tsx';
import { SignInPage } from './pages/SignInPage.tsx';
import { TradeoffsPage } from './pages/TradeoffsPage.tsx';
import { WebhooksPage } from './pages/WebhooksPage.tsx';
import { WorkflowsPage } from './pages/WorkflowsPage.tsx';
import { navigate, useRoute } from './router.ts';

/**
 * The pages, by path; each is one screen of the console. App renders each inside its own
 * PageBoundary (keyed by the path, so leaving a failed page leaves its error behind).
 */
export const PAGES = [
  { path: '/overview', title: 'Overview', Page: OverviewPage },
  { path: '/reviews', title: 'Review queue', Page: ReviewsPage },
  { path: '/decisions', title: 'Decision search', Page: DecisionsPage },
  { path: '/workflows', title: 'Workflows', Page: WorkflowsPage },
  { path: '/tradeoffs', title: 'Trade-off', Page: TradeoffsPage },
  { path: '/dispositions', title: 'Dispositions upload', Page: DispositionsPage },
  { path: '/webhooks', title: 'Webhooks', Page: WebhooksPage },
  { path: '/lists', title: 'Lists', Page: ListsPage },
  { path: '/network', title: 'Network', Page: NetworkPage },
  { path: '/privacy', title: 'Privacy', Page: PrivacyPage },
  { path: '/audit', title: 'Audit log', Page: AuditPage },
] as const;

function App() {
  const route = useRoute();
  const user = signedIn();
  const page = PAGES.find((p) => p.path === route.path);
  useEffect(() => {
    if (route.path !== '/sign-in' && !user) navigate('/sign-in', { replace: true });
    else if (route.path === '/' || (!page && route.path !== '/sign-in'))
      navigate('/overview', { replace: true });
  }, [route.path, user, page]);
  useEffect(() => {
    document.title = `${page?.title ?? 'Sign in'} · Abuse-decision console`;
  }, [page]);
  if (route.path === '/sign-in' || !user) {
    return (
      <PageBoundary key="/sign-in">
        <SignInPage ended={route.query.has('ended')} />
      </PageBoundary>
    );
  }
  if (!page) return null;
  return (
    <Layout user={user} pages={PAGES} current={page.path} title={page.title}>
      <PageBoundary key={page.path}>
        <page.Page route={route} />
      </PageBoundary>
    </Layout>
  );
}

// Layout follows the locale's script: right to left for Arabic, Hebrew, Persian, …
document.documentElement.dir = format.direction;
render(
  <PageBoundary>
    <App />
  </PageBoundary>,
  document.getElementById('app')!,
);
