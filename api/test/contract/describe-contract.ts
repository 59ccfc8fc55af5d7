/** What a contract's tests run on: made new for each test, disposed after it. */
export interface UnderTest {
  dispose(): Promise<void>;
}

let tests = 0;

/**
 * Declares a contract suite, `title`: `create` makes what each test runs on, new for each test
 * and disposed after it; `declare` declares the tests, which read the current test's subject with
 * `subject()`, with `testId`, a number no other test of the process has (for rooms and addresses
 * no other test touches, on storage the tests share).
 */
export function describeContract<T extends UnderTest>(
  title: string,
  create: () => Promise<T>,
  declare: (subject: () => T & { testId: number }) => void,
): void {
  describe(title, () => {
    let current: T | undefined;
    let id = 0;

    beforeEach(async () => {
      current = await create();
      id = ++tests;
    });
    afterEach(() => current?.dispose());

    declare(() => {
      if (current === undefined) throw new Error('Only inside a test');
      return { ...current, testId: id };
    });
  });
}

/**
 * `describeContract` for a port that counts per client address: `subject()` gives `ip` too, an
 * address no other test of the process uses, so counts on storage the tests share start at 0.
 */
export function describePerAddressContract<T extends UnderTest>(
  title: string,
  create: () => Promise<T>,
  declare: (subject: () => T & { ip: string }) => void,
): void {
  describeContract(title, create, (subject) =>
    declare(() => {
      const current = subject();
      return { ...current, ip: `2001:db8::${current.testId}` };
    }),
  );
}
