/**
 * The {@code fsp} command line: one picocli command per verb over the client library, the settings they read,
 * and how results, progress and exit codes are shown.
 */
package io.fsp.cli;
