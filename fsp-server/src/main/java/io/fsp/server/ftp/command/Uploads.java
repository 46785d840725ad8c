package io.fsp.server.ftp.command;

import io.fsp.server.fs.FtpPath;
import io.fsp.server.fs.UploadNames;
import io.fsp.server.ftp.FtpReplyException;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.server.ftp.ReplyCode;
import io.fsp.server.ftp.TransferType;
import io.fsp.server.ftp.data.AsciiDecoder;
import io.fsp.server.ftp.data.DataChannelInitializer;
import io.fsp.server.ftp.data.DataConnection;
import io.fsp.server.ftp.data.DataTransfers;
import io.fsp.server.ftp.data.FileReceiver;
import io.fsp.server.ftp.data.LocalFileException;
import io.netty.util.concurrent.Promise;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;

/**
 * What STOR, APPE and STOU share. A new or replaced file is written under a hidden partial name beside
 * the target and renamed over it only after the last byte arrived, so a broken upload never looks
 * complete and never destroys the old file. Appending and resuming (REST then STOR) write in place, as
 * they must; a resumed file is cut at the end of what was received.
 */
final class Uploads {
    enum Mode { REPLACE, APPEND, RESUME, UNIQUE }

    /** An open upload: where bytes go, and what to do when they have all arrived. */
    private record Target(FtpPath path, FileChannel file, Path partial, Path target, long position, boolean truncate)
            implements AutoCloseable {
        @Override
        public void close() throws IOException {
            file.close();
            if (partial != null) {
                Files.deleteIfExists(partial);
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
        Optional<DataConnection> connection = session.takeDataConnection();
        if (connection.isEmpty()) {
            session.reply(Replies.noDataConnection());
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
                                complete(target, bytes);
                                stored.trySuccess(bytes);
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
                target.close();
                if (!ok && mode == Mode.UNIQUE) {
                    Files.deleteIfExists(target.target()); // the name was only reserved
                }
            });
        }, () -> connection.get().close());
    }

    private static Target open(FtpSession session, FtpPath requested, Mode mode, long offset) throws IOException {
        FtpPath path = requested;
        if (path.isRoot()) {
            throw new FtpReplyException(Replies.notAFile(path));
        }
        Path dir = session.root().resolve(path.parent());
        if (!Files.isDirectory(dir)) {
            throw new NoSuchFileException(path.parent().toString());
        }
        if (mode == Mode.UNIQUE) {
            for (int i = 0; ; i++) {
                FtpPath candidate = i == 0 ? path : path.parent().child(path.name() + "." + i);
                Path real = dir.resolve(candidate.name());
                try {
                    FileChannel file = FileChannel.open(real, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                    return new Target(candidate, file, null, real, 0, false);
                } catch (java.nio.file.FileAlreadyExistsException e) {
                    if (i >= 999) {
                        throw new FtpReplyException(ReplyCode.FILE_NAME_NOT_ALLOWED, "No unique name left for " + Replies.quote(path));
                    }
                }
            }
        }
        Path real = session.root().resolve(path);
        if (Files.isDirectory(real)) {
            throw new FtpReplyException(Replies.notAFile(path));
        }
        switch (mode) {
            case APPEND -> {
                FileChannel file = FileChannel.open(real, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                return new Target(path, file, null, real, file.size(), false);
            }
            case RESUME -> {
                long size = Files.exists(real, LinkOption.NOFOLLOW_LINKS) ? Files.size(real) : 0;
                if (offset > size) {
                    throw new FtpReplyException(ReplyCode.INVALID_REST,
                            "REST offset " + offset + " is beyond the end of " + Replies.quote(path) + " (" + size + " bytes)");
                }
                FileChannel file = FileChannel.open(real, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                return new Target(path, file, null, real, offset, true);
            }
            default -> {
                Path partial = real.resolveSibling(UploadNames.partialName(path.name()));
                FileChannel file = FileChannel.open(partial, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                return new Target(path, file, partial, real, 0, false);
            }
        }
    }

    /** Runs off the loop once every byte is written. */
    private static void complete(Target target, long bytes) throws IOException {
        if (target.truncate()) {
            target.file().truncate(target.position() + bytes);
        }
        target.file().close();
        if (target.partial() != null) {
            Files.move(target.partial(), target.target(), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
    }
}
