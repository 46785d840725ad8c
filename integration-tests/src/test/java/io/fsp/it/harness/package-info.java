/**
 * Runs the programs under test as real processes and drives them with real clients: the server
 * process, external client tools, a raw control connection for hostile input, and test data.
 */
package io.fsp.it.harness;
