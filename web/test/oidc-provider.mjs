// A real OpenID Connect provider for the tests: panva's oidc-provider
// (OpenID-certified), with its development login and consent pages, on an
// ephemeral loopback port.
//
//   node web/test/oidc-provider.mjs [ACCOUNTS_JSON]
//
// Prints "listening http://127.0.0.1:PORT" and "issuer ISSUER" on stdout as
// soon as the port is bound (the issuer is OIDC_ISSUER when set: the URL of a
// proxy in front, which forwards to the port), then "key KID PKCS8" and
// "stranger KID PKCS8": the provider's signing key (RS256, the only key in
// its JWKS) and one it does not know, base64 PKCS#8, so a test in the middle
// can sign ID tokens as the provider would and as an impostor would. It then
// reads one line from stdin: the redirect URIs to register for
// the client (space-separated; snip's port is known only once snip runs,
// and snip needs the issuer to start), configures the provider and prints
// "ready". Every request before that is answered 503.
//
// The client: id "snip", secret "snip-test-secret", the code flow (PKCE)
// and the device flow (RFC 8628). Anyone may log in on the development
// login page with any password; the login name picks the account from
// ACCOUNTS_JSON ({"alice": {"name": "Alice Liddell", "groups": ["team"]}},
// by default alice, bob and carol below); an unknown name is an account
// with no groups. Stdin is read on: a line "groups LOGIN G1,G2" changes an
// account's groups (answered "ok"), so a test can take someone out of a group;
// "gone LOGIN" removes the account (answered "ok"), so the provider refuses
// to renew its sign-ins.
//
// With OIDC_NATIVE=1 the client is a native application (RFC 8252: a
// loopback redirect URI matches on any port, as `snip login` needs) and the
// provider offers no device flow.
//
// Refresh tokens are issued to the client on every sign-in (as providers
// such as Keycloak do for confidential clients), not only when it asks for
// offline_access with prompt=consent (oidc-provider's default); a refresh
// gives a new ID token with the account's groups as they are then.

import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';
import Provider from 'oidc-provider';

export const CLIENT_ID = 'snip';
export const CLIENT_SECRET = 'snip-test-secret';
const NATIVE = process.env.OIDC_NATIVE === '1';

const accounts = JSON.parse(process.argv[2] || 'null') || {
  alice: { name: 'Alice Liddell', groups: ['team'] },
  bob: { name: 'Bob Hope', groups: ['staff', 'team'] },
  carol: { name: 'Carol Nobody', groups: [] },
  dave: { name: 'Dave Twogroups', groups: ['other', 'team'] },
};
const gone = new Set();

let handler = (_req, res) => {
  res.writeHead(503).end('not configured yet');
};
const server = createServer((req, res) => handler(req, res));
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const listening = `http://127.0.0.1:${server.address().port}`;
const issuer = process.env.OIDC_ISSUER || listening;
process.stdout.write(`listening ${listening}\nissuer ${issuer}\n`);

// An RSA key pair, its private JWK and its base64 PKCS#8.
function rsaKey(kid) {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pkcs8 = privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64');
  return { jwk: { ...privateKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' }, pkcs8 };
}
const signing = rsaKey('provider-key');
const stranger = rsaKey('stranger-key');
process.stdout.write(`key ${signing.jwk.kid} ${signing.pkcs8}\nstranger ${stranger.jwk.kid} ${stranger.pkcs8}\n`);

const lines = createInterface({ input: process.stdin });
let configured = false;
lines.on('line', (line) => {
  if (!configured) {
    configured = true;
    configure(line.trim().split(/\s+/).filter(Boolean));
    process.stdout.write('ready\n');
    return;
  }
  const [command, login, groups] = line.trim().split(/\s+/);
  if (command === 'groups' && login) {
    accounts[login] = { ...(accounts[login] || { name: login }), groups: (groups || '').split(',').filter(Boolean) };
    process.stdout.write('ok\n');
  } else if (command === 'gone' && login) {
    gone.add(login);
    process.stdout.write('ok\n');
  }
});
// The test closing stdin (or dying) ends the provider.
lines.on('close', () => process.exit(0));

function configure(redirectUris) {
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: redirectUris,
        post_logout_redirect_uris: redirectUris.map((uri) => new URL('/', uri).href),
        grant_types: ['authorization_code', 'refresh_token', ...(NATIVE ? [] : ['urn:ietf:params:oauth:grant-type:device_code'])],
        response_types: ['code'],
        application_type: NATIVE ? 'native' : 'web',
      },
    ],
    async findAccount(_ctx, id) {
      if (gone.has(id)) return undefined;
      return {
        accountId: id,
        async claims() {
          const account = accounts[id] || { name: id, groups: [] };
          return { sub: id, name: account.name, preferred_username: id, groups: account.groups };
        },
      };
    },
    claims: { openid: ['sub'], profile: ['name', 'preferred_username'], groups: ['groups'] },
    scopes: ['openid', 'offline_access', 'profile', 'groups'],
    // The ID token carries the claims its scopes ask for (snip reads them there).
    conformIdTokenClaims: false,
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    features: {
      devInteractions: { enabled: true },
      deviceFlow: { enabled: !NATIVE },
      rpInitiatedLogout: { enabled: true },
    },
    cookies: { keys: ['oidc-provider-test-cookie-key'] },
    jwks: { keys: [signing.jwk] },
  });
  // Its server errors on stderr, where the test shows them.
  provider.on('server_error', (_ctx, error) => process.stderr.write(`oidc-provider: ${error}\n`));
  handler = provider.callback();
}
