/**
 * What the FTP control channel's two ends share: the reply codes ({@link io.fsp.ftp.ReplyCode}), one table that the
 * server sends from and the client waits on.
 */
package io.fsp.ftp;
