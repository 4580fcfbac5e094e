import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A webhook receiver on 127.0.0.1 for one test: records every request, answers from a script. */
interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Statuses to answer, in order; after the list runs out every answer is 200. */
  answers: number[];
  close: () => Promise<void>;
}

export async function startWebhookReceiver(answers: number[] = []): Promise<WebhookReceiver> {
  const receiver = { received: [] as ReceivedWebhook[], answers } as WebhookReceiver;
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => {
      receiver.received.push({ headers: request.headers, body });
      response.writeHead(receiver.answers.shift() ?? 200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}
