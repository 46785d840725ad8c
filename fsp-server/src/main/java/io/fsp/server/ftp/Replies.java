package io.fsp.server.ftp;

import io.fsp.ftp.ReplyCode;
import io.fsp.server.fs.FtpPath;
import io.fsp.server.fs.PathEscapeException;
import io.fsp.server.fs.NotRegularFileException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/** Factories for the replies the commands share. Paths are virtual and quoted; no real path ever appears. */
public final class Replies {
    private Replies() {
    }

    public static FtpReply of(ReplyCode code, String text) {
        return new FtpReply(code, text);
    }

    public static FtpReply ok(String text) {
        return new FtpReply(ReplyCode.COMMAND_OK, text);
    }

    public static FtpReply fileActionOk(String text) {
        return new FtpReply(ReplyCode.FILE_ACTION_OK, text);
    }

    public static FtpReply syntaxError(String text) {
        return new FtpReply(ReplyCode.SYNTAX_ERROR, text);
    }

    public static FtpReply badArguments(String text) {
        return new FtpReply(ReplyCode.SYNTAX_ERROR_IN_ARGUMENTS, text);
    }

    public static FtpReply missingArgument(String verb, String syntax) {
        return badArguments(verb + ": missing argument (expected: " + syntax + ")");
    }

    public static FtpReply notImplemented(String verb) {
        return new FtpReply(ReplyCode.NOT_IMPLEMENTED, verb + ": command not implemented");
    }

    public static FtpReply notImplementedForParameter(String text) {
        return new FtpReply(ReplyCode.NOT_IMPLEMENTED_FOR_PARAMETER, text);
    }

    public static FtpReply badSequence(String text) {
        return new FtpReply(ReplyCode.BAD_SEQUENCE, text);
    }

    public static FtpReply notLoggedIn() {
        return new FtpReply(ReplyCode.NOT_LOGGED_IN, "Please log in with USER and PASS first");
    }

    public static FtpReply loginIncorrect() {
        return new FtpReply(ReplyCode.NOT_LOGGED_IN, "Login incorrect");
    }

    public static FtpReply fileNotFound(FtpPath path) {
        return new FtpReply(ReplyCode.FILE_UNAVAILABLE, quote(path) + ": no such file or directory");
    }

    public static FtpReply notAFile(FtpPath path) {
        return new FtpReply(ReplyCode.FILE_UNAVAILABLE, quote(path) + ": not a plain file");
    }

    public static FtpReply notADirectory(FtpPath path) {
        return new FtpReply(ReplyCode.FILE_UNAVAILABLE, quote(path) + ": not a directory");
    }

    public static FtpReply outsideRoot(String argument) {
        return new FtpReply(ReplyCode.FILE_UNAVAILABLE, quote(argument) + ": outside the user's root");
    }

    /** The reply for a path argument refused before anything is looked up: outside the root, or a reserved name. */
    public static FtpReply pathRefused(String argument, java.nio.file.AccessDeniedException e) {
        if (e instanceof PathEscapeException.Reserved) {
            return new FtpReply(ReplyCode.FILE_NAME_NOT_ALLOWED, quote(argument) + ": " + e.getReason()
                    + " (.NAME.fsp-part…, .NAME.fsp-lock, .NAME.fsp-journal, .NAME.fsp-manifest)");
        }
        return outsideRoot(argument);
    }

    public static FtpReply readOnly() {
        return new FtpReply(ReplyCode.FILE_UNAVAILABLE, "Permission denied: read-only account");
    }

    public static FtpReply noDataConnection() {
        return new FtpReply(ReplyCode.CANT_OPEN_DATA_CONNECTION, "Use PORT, EPRT, PASV or EPSV first");
    }

    public static FtpReply serviceNotAvailable(String text) {
        return new FtpReply(ReplyCode.SERVICE_NOT_AVAILABLE, text);
    }

    public static FtpReply localError() {
        return new FtpReply(ReplyCode.LOCAL_ERROR, "Local error in processing");
    }

    /** The reply for a failed file-system operation on {@code path}. */
    public static FtpReply forFailure(FtpPath path, Throwable e) {
        if (e instanceof FtpReplyException r) {
            return r.reply();
        }
        if (e instanceof PathEscapeException p) {
            return pathRefused(path.toString(), p);
        }
        if (e instanceof NotRegularFileException) {
            return notAFile(path);
        }
        if (e instanceof NoSuchFileException) {
            return fileNotFound(path);
        }
        if (e instanceof NotDirectoryException) {
            return notADirectory(path);
        }
        if (e instanceof FileAlreadyExistsException) {
            return new FtpReply(ReplyCode.FILE_UNAVAILABLE, quote(path) + ": already exists");
        }
        if (e instanceof DirectoryNotEmptyException) {
            return new FtpReply(ReplyCode.FILE_UNAVAILABLE, quote(path) + ": directory not empty");
        }
        if (e instanceof AccessDeniedException) {
            return new FtpReply(ReplyCode.FILE_UNAVAILABLE, quote(path) + ": permission denied");
        }
        if (e instanceof FileSystemException f && f.getReason() != null && f.getReason().contains("space")) {
            return new FtpReply(ReplyCode.INSUFFICIENT_STORAGE, "Insufficient storage space");
        }
        return new FtpReply(ReplyCode.LOCAL_ERROR, quote(path) + ": local error in processing");
    }

    /** RFC 959 Appendix II: a path in a reply is quoted, with embedded quotes doubled. */
    public static String quote(Object path) {
        return "\"" + path.toString().replace("\"", "\"\"") + "\"";
    }
}
