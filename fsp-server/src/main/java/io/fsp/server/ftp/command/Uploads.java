package io.fsp.server.ftp.command;

import io.fsp.server.fs.DirectoryHandle;
import io.fsp.server.fs.FtpPath;
import io.fsp.server.fs.UserRoot;
import io.fsp.server.fs.UploadNames;
import io.fsp.server.ftp.DataConnection;
import io.fsp.server.ftp.FtpReplyException;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;
import io.fsp.server.ftp.TransferType;
import io.fsp.server.ftp.UploadGuard;
import io.fsp.server.ftp.data.AsciiDecoder;
import io.fsp.server.ftp.data.DataChannelInitializer;
import io.fsp.server.ftp.data.DataTransfers;
import io.fsp.server.ftp.data.FileReceiver;
import io.fsp.server.ftp.data.LocalFileException;
import io.netty.util.concurrent.Promise;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;

/**
 * What STOR, APPE and STOU share. A new or replaced file is written under a hidden partial name beside
 * the target and renamed over it only after the last byte arrived, so a broken upload never looks
 * complete and never destroys the old file. Appending and resuming (REST then STOR) write in place, as
 * they must; a resumed file is cut at the end of what was received. An extension's {@link UploadGuard} (FCOL: no
 * upload into a file, or a directory, that a run is collecting into) is asked at the start, and again before a
 * replacing upload's rename.
 */
final class Uploads {
    enum Mode { REPLACE, APPEND, RESUME, UNIQUE }

    /**
     * An open upload: where bytes go (a file opened through {@code dir}, the directory holding it), and what
     * to do when they have all arrived.
     */
    private record Target(UserRoot root, FtpPath path, DirectoryHandle dir, FileChannel file, String partial,
                          String target, long position, boolean truncate) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            try (dir) {
                file.close();
                if (partial != null) {
                    dir.deleteIfExists(partial);
                }
            }
        }
    }

    private Uploads() {
    }

    static void receive(FtpSession session, FtpPath path, Mode requested) {
        if (!CommandPaths.writable(session)) {
            return;
        }
        long offset = session.takeRestOffset();
        Mode mode = requested == Mode.REPLACE && offset > 0 ? Mode.RESUME : requested;
        Optional<DataConnection> connection = session.takeDataConnectionOrReply();
        if (connection.isEmpty()) {
            return;
        }
        boolean ascii = session.type() == TransferType.ASCII;
        session.blocking(path, () -> open(session, path, mode, offset), target -> {
            String what = mode == Mode.UNIQUE ? "FILE: " + target.path().name()
                    : "Opening " + (ascii ? "ASCII" : "BINARY") + " mode data connection for " + Replies.quote(target.path());
            DataTransfers.run(session, connection.get(), target.path(), what, true, (ch, tls, transfer) -> {
                if (ascii) {
                    ch.pipeline().addLast(DataChannelInitializer.ASCII, new AsciiDecoder());
                }
                Promise<Long> received = ch.eventLoop().newPromise();
                Promise<Long> stored = ch.eventLoop().newPromise();
                ch.pipeline().addLast("receiver", new FileReceiver(session, target.file(), target.position(), transfer, received));
                received.addListener(f -> {
                    if (!f.isSuccess()) {
                        stored.tryFailure(f.cause());
                        return;
                    }
                    long bytes = (Long) f.getNow();
                    try {
                        session.server().blocking().execute(() -> {
                            try {
                                complete(target, bytes, session.server().config().fsyncUploads(),
                                        session.server().commands().uploadGuard());
                                stored.trySuccess(bytes);
                            } catch (FtpReplyException e) {
                                stored.tryFailure(e);
                            } catch (IOException e) {
                                stored.tryFailure(new LocalFileException(e));
                            }
                        });
                    } catch (RejectedExecutionException e) {
                        stored.tryFailure(new LocalFileException(new IOException("server busy")));
                    }
                });
                return stored;
            }, ok -> {
                try (target) {
                    if (!ok && mode == Mode.UNIQUE) {
                        target.dir().deleteIfExists(target.target()); // the name was only reserved
                    }
                }
            });
        }, () -> connection.get().close());
    }

    private static Target open(FtpSession session, FtpPath path, Mode mode, long offset) throws IOException {
        if (path.isRoot()) {
            throw new FtpReplyException(Replies.notAFile(path));
        }
        UploadGuard guard = session.server().commands().uploadGuard();
        if (mode == Mode.UNIQUE) {
            guard.checkFree(session.root(), path.parent(), session.root().resolve(path.parent()));
            DirectoryHandle dir = session.root().directory(path.parent());
            try {
                for (int i = 0; ; i++) {
                    FtpPath candidate = i == 0 ? path : path.parent().child(path.name() + "." + i);
                    try {
                        FileChannel file = dir.createFile(candidate.name());
                        return new Target(session.root(), candidate, dir, file, null, candidate.name(), 0, false);
                    } catch (FileAlreadyExistsException e) {
                        if (i >= 999) {
                            throw new FtpReplyException(ReplyCode.FILE_NAME_NOT_ALLOWED, "No unique name left for " + Replies.quote(path));
                        }
                    }
                }
            } catch (IOException | RuntimeException e) {
                dir.close();
                throw e;
            }
        }
        UserRoot.Entry entry = session.root().target(path);
        DirectoryHandle dir = entry.dir();
        String name = entry.name();
        try {
            guard.checkFree(session.root(), path, dir.path().resolve(name).normalize());
            // Only a regular file is replaced or written to: never a directory, FIFO, socket or device.
            if (name.equals(".") || dir.attributes(name).map(a -> !a.isRegularFile()).orElse(false)) {
                throw new FtpReplyException(Replies.notAFile(path));
            }
            switch (mode) {
                case APPEND -> {
                    FileChannel file = dir.writeFile(name);
                    return new Target(session.root(), path, dir, file, null, name, file.size(), false);
                }
                case RESUME -> {
                    // Checked before the open too, so a refused resume does not create the file.
                    checkRestOffset(path, offset, dir.attributes(name).map(a -> a.size()).orElse(0L));
                    FileChannel file = dir.writeFile(name);
                    try {
                        checkRestOffset(path, offset, file.size());
                    } catch (FtpReplyException e) {
                        file.close();
                        throw e;
                    }
                    return new Target(session.root(), path, dir, file, null, name, offset, true);
                }
                default -> {
                    String partial = UploadNames.partialName(path.name());
                    FileChannel file = dir.createFile(partial);
                    return new Target(session.root(), path, dir, file, partial, name, 0, false);
                }
            }
        } catch (IOException | RuntimeException e) {
            dir.close();
            throw e;
        }
    }

    private static void checkRestOffset(FtpPath path, long offset, long size) throws FtpReplyException {
        if (offset > size) {
            throw new FtpReplyException(ReplyCode.INVALID_REST,
                    "REST offset " + offset + " is beyond the end of " + Replies.quote(path) + " (" + size + " bytes)");
        }
    }

    /**
     * Runs off the loop once every byte is written. With {@code fsync-uploads} the data, and after a rename
     * the directory entry, reach stable storage before the 226 that reports them.
     */
    private static void complete(Target target, long bytes, boolean fsync, UploadGuard guard) throws IOException {
        if (target.truncate()) {
            target.file().truncate(target.position() + bytes);
        }
        if (fsync) {
            target.file().force(true);
        }
        target.file().close();
        if (target.partial() != null) {
            // a collection into this name may have begun while the bytes came: its file is not replaced
            guard.checkFree(target.root(), target.path(), target.dir().path().resolve(target.target()));
            target.dir().move(target.partial(), target.dir(), target.target());
            if (fsync) {
                target.dir().sync();
            }
        }
    }
}
