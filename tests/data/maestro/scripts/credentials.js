// Credentials for the demo account: USER comes from runScript's env, DOMAIN from the flow's.
output.credentials = {
  email: USER + '@' + DOMAIN,
  password: ['hunter', 2].join(''),
};
