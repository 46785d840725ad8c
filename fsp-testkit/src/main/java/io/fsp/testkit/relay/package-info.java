/**
 * Faults a relay can be told to commit against its clients, as values (in the manner of OkHttp
 * MockWebServer's SocketPolicy): flipped bits, early close, stalls, throttling, duplicated and foreign
 * blocks. They exist so that tests and benchmarks can show a client detecting and recovering from a
 * bad relay (poster 003: recovery from caches near the receiver); servers pushing blocks are never
 * affected. A relay commits them through its ordinary extension point ({@code RelayConfig.withHandlers},
 * {@link FaultPlan#handlers()}); {@link FaultyRelayCommand} is the relay program with faults, for tests that
 * need a relay process. No shipped artifact contains this module.
 */
package io.fsp.testkit.relay;
