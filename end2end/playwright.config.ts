// Playwright drives Debian's chromium against a server that scripts/test.sh has started on :3300
// (BASE_URL; :3000 is the demo site's, which may be running meanwhile).
import { defineConfig, devices } from '@playwright/test';

const chromium = {
  ...devices['Desktop Chrome'],
  launchOptions: {
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  },
};

export default defineConfig({
  testDir: './tests',
  timeout: 30_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [['list']],
  use: {
    baseURL: process.env.BASE_URL ?? 'http://127.0.0.1:3300',
    trace: 'retain-on-failure',
  },
  projects: [
    {
      // The look first, on the freshly seeded demo data (its upcoming sale opens five minutes after the seed):
      // both languages (by the switch's cookie) and both schemes.
      name: 'look',
      testMatch: /appearance\.spec\.ts/,
      use: { ...chromium, locale: 'en-US' },
    },
    {
      // Every other spec, in English: the browser asks for it (Accept-Language), as the specs' texts are.
      name: 'chromium',
      testIgnore: /appearance\.spec\.ts/,
      dependencies: ['look'],
      use: { ...chromium, locale: 'en-US' },
    },
    {
      // The main journeys again in Chinese, the site's first language (a browser set to zh-CN).
      name: 'chromium-zh',
      testMatch: /journeys\.spec\.ts/,
      dependencies: ['look'],
      use: { ...chromium, locale: 'zh-CN' },
    },
  ],
});
