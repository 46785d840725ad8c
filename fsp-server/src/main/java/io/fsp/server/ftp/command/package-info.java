/**
 * One stateless class per FTP verb (and per FSP extension verb: FSPO, FHAV, FRET, FGET, which drive the striping
 * engine and write its announcements as {@code 151} lines), each documented with its syntax and RFC section, and the
 * standard set ({@link io.fsp.server.ftp.command.StandardCommands}) registered in {@link io.fsp.server.ftp.FtpCommands},
 * which maps verbs and aliases to them, checks access, and generates the FEAT (RFC 2389) and HELP replies.
 */
package io.fsp.server.ftp.command;
