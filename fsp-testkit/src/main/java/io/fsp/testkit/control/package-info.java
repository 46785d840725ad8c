/**
 * A scripted FTP control channel over real loopback TLS ({@link ScriptedServer}), for tests of a client's side of
 * the conversation (replies, refusals, announcements that lie) without a server process.
 */
package io.fsp.testkit.control;
