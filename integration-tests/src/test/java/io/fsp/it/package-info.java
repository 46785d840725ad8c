/**
 * Integration tests ({@code *IT}): the FTP server as a separate process, driven over loopback by
 * real clients (Commons Net, curl, lftp, aria2c, Python ftplib) and by raw sockets for bad input
 * (RFC 959, 2228, 2389, 2428, 3659, 4217, draft-bryan-ftpext-hash).
 */
package io.fsp.it;
