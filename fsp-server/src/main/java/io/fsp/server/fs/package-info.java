/**
 * The per-user file system view: virtual paths ({@link io.fsp.server.fs.FtpPath}) resolved one segment at a
 * time inside a user's root directory ({@link io.fsp.server.fs.UserRoot}) and then reached through directory
 * handles with links not followed ({@link io.fsp.server.fs.DirectoryHandle}), and the directory listings of
 * RFC 959 (LIST, NLST) and RFC 3659 §7 (MLST, MLSD facts).
 */
package io.fsp.server.fs;
