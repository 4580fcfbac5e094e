import { App } from 'aws-cdk-lib';
import { buildAbuseDecisionApp } from '../lib/abuse-decision-app.ts';

/** `cdk synth|deploy`: both environments' stacks (AbuseDecision-<stage>-Data / -Api) from lib/config.ts. */
const app = new App();
buildAbuseDecisionApp(app);
app.synth();
