import dns2 from 'dns2';

const { Packet } = dns2;

/** What the server answers for a name when asked: its addresses (IPv4 or IPv6), or none. */
export type Answer = (name: string) => readonly string[];

export interface TestDns {
  /** `ip:port`, for GATE_BROKER_DNS_SERVERS. */
  server: string;
  /** Every name asked for an A record, in order, with what was answered. */
  readonly asked: readonly { name: string; answered: readonly string[] }[];
  answer(with_: Answer): void;
  close(): Promise<void>;
}

/**
 * A DNS server of the test's own on loopback (UDP), answering A and AAAA records as the test says,
 * with a TTL of 0 so no resolver keeps an answer: each lookup asks again, as a hostile name's
 * owner would want.
 */
export async function startTestDns(initial: Answer = () => []): Promise<TestDns> {
  let answer = initial;
  const asked: { name: string; answered: readonly string[] }[] = [];
  const server = dns2.createUDPServer((request, send) => {
    const response = Packet.createResponseFromRequest(request);
    for (const question of request.questions) {
      const wantsV6 = question.type === Packet.TYPE.AAAA;
      const addresses = answer(question.name).filter(
        (address) => address.includes(':') === wantsV6,
      );
      if (!wantsV6) asked.push({ name: question.name, answered: addresses });
      for (const address of addresses) {
        response.answers.push(
          Packet.createResourceFromQuestion(question, {
            type: wantsV6 ? Packet.TYPE.AAAA : Packet.TYPE.A,
            class: Packet.CLASS.IN,
            ttl: 0,
            address,
          }),
        );
      }
    }
    void send(response);
  });
  await server.listen(0, '127.0.0.1');
  const { port } = server.address();
  return {
    server: `127.0.0.1:${port}`,
    asked,
    answer(with_) {
      answer = with_;
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  };
}
