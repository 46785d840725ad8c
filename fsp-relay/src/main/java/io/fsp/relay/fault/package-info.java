/**
 * Faults a relay can be told to commit against its clients, as values (in the manner of OkHttp
 * MockWebServer's SocketPolicy): flipped bits, early close, stalls, throttling, duplicated and foreign
 * blocks. They exist so that tests and demonstrations can show a client detecting and recovering from a
 * bad relay (poster 003: recovery from caches near the receiver); servers pushing blocks are never
 * affected.
 */
package io.fsp.relay.fault;
