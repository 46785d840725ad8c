/**
 * Network faults for tests: a proxy on loopback that records and changes the bytes between two peers.
 */
package io.fsp.testkit.net;
