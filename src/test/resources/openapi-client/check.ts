// Drives the generated client through create, replay and a reused key, the way an integrator's code would.
// Arguments: the service's base URL and a bearer token. Prints one line per step; exits non-zero on any surprise.
import { strict as assert } from 'node:assert';
import { randomUUID } from 'node:crypto';
import { Configuration, OrdersApi, ProblemCode, ProblemFromJSON, ResponseError } from './client';

async function main(basePath: string, token: string): Promise<void> {
  const orders = new OrdersApi(new Configuration({ basePath, accessToken: token }));
  const idempotencyKey = randomUUID();
  const order = { items: [{ productId: 'p-184', quantity: 1 }], currency: 'RUB' };

  const created = await orders.createOrderRaw({ idempotencyKey, createOrderRequest: order });
  assert.equal(created.raw.status, 201);
  assert.equal(created.raw.headers.get('Idempotent-Replayed'), null);
  const first = await created.value();
  console.log(`create ${created.raw.status} ${first.status}`);

  const replayed = await orders.createOrderRaw({ idempotencyKey, createOrderRequest: order });
  const again = await replayed.value();
  assert.equal(replayed.raw.status, 201);
  assert.equal(again.orderId, first.orderId);
  console.log(`replay ${replayed.raw.status} Idempotent-Replayed=${replayed.raw.headers.get('Idempotent-Replayed')}`);

  try {
    await orders.createOrder({ idempotencyKey, createOrderRequest: { ...order, items: [{ productId: 'p-184', quantity: 2 }] } });
    assert.fail('a reused key was accepted');
  } catch (error) {
    if (!(error instanceof ResponseError)) {
      throw error;
    }
    const problem = ProblemFromJSON(await error.response.json());
    assert.equal(problem.code, ProblemCode.IdempotencyKeyReused);
    console.log(`reuse ${error.response.status} ${problem.code}`);
  }
}

main(process.argv[2], process.argv[3]).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
