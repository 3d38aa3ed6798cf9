import { startStack } from './stack';

export default async function globalSetup() {
  const bench = Boolean(process.env.KUBEOPERA_BENCH);
  const s = await startStack(bench ? { sandbox: false, seed: 1000 } : { sandbox: !process.env.KUBEOPERA_E2E_NO_SANDBOX });
  process.env.KUBEOPERA_E2E_URL = s.baseURL;
}
