import { stableChance } from './stable.ts';

/**
 * E-mail domains of a merchant whose customers are not at the few large providers: regional
 * providers (a European or Asian shop's customers) and company domains (a B2B shop, or customers who
 * order from work), each shared by only a few customers. An address keeps its domain across events.
 */
const REGIONAL_PROVIDERS = [
  'web.de',
  'gmx.de',
  't-online.de',
  'orange.fr',
  'free.fr',
  'laposte.net',
  'libero.it',
  'virgilio.it',
  'seznam.cz',
  'wp.pl',
  'o2.pl',
  'telenet.be',
  'ziggo.nl',
  'bluewin.ch',
  'btinternet.com',
  'sky.com',
  'comcast.net',
  'att.net',
  'verizon.net',
  'shaw.ca',
  'videotron.ca',
  'bigpond.com',
  'xtra.co.nz',
  'naver.com',
  'daum.net',
  'yandex.ru',
  'mail.ru',
  'rediffmail.com',
  'uol.com.br',
  'terra.com.br',
];

const COMPANY_WORDS = ['north', 'river', 'alpine', 'harbor', 'summit', 'cedar', 'granite', 'maple'];
const COMPANY_KINDS = ['logistics', 'dental', 'studio', 'law', 'systems', 'bakery', 'motors', 'labs'];
const COMPANY_TLDS = ['com', 'de', 'co.uk', 'fr', 'io', 'nl'];
/** 8 x 8 x 6 = 384 company domains, a handful of customers each at the eval's volume. */
const COMPANY_DOMAINS = COMPANY_WORDS.flatMap((word) =>
  COMPANY_KINDS.flatMap((kind) => COMPANY_TLDS.map((tld) => `${word}-${kind}.${tld}`)),
);

/** Share of addresses at a company domain; the rest are at regional providers. */
const COMPANY_SHARE = 0.4;

export const smallDomains = (email: string): string => {
  const draw = stableChance(`domain:${email}`);
  if (draw < COMPANY_SHARE)
    return COMPANY_DOMAINS[Math.floor((draw / COMPANY_SHARE) * COMPANY_DOMAINS.length)]!;
  return REGIONAL_PROVIDERS[
    Math.floor(((draw - COMPANY_SHARE) / (1 - COMPANY_SHARE)) * REGIONAL_PROVIDERS.length)
  ]!;
};
