/**
 * One stateless class per FTP verb, each documented with its syntax and RFC section, and the standard set
 * ({@link io.fsp.server.ftp.command.StandardCommands}) registered in {@link io.fsp.server.ftp.FtpCommands}, which maps
 * verbs and aliases to them, checks access, and generates the FEAT (RFC 2389) and HELP replies. The FSP extension's
 * verbs are in {@code io.fsp.server.fsp}.
 */
package io.fsp.server.ftp.command;
