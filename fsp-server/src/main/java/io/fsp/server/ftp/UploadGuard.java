package io.fsp.server.ftp;

import io.fsp.server.fs.FtpPath;
import io.fsp.server.fs.UserRoot;
import java.io.IOException;
import java.nio.file.Path;

/**
 * A check an extension puts on uploads (STOR, APPE, STOU): it refuses to write a file that the extension is writing
 * itself, as FCOL does into its destination. Registered in {@link FtpCommands#guardUploads}.
 */
@FunctionalInterface
public interface UploadGuard {
    UploadGuard NONE = (root, path, real) -> { };

    /**
     * Refuses to write {@code real}, the real path of {@code path} in {@code root}.
     *
     * @throws FtpReplyException the refusal, such as 450 while another run writes there
     */
    void checkFree(UserRoot root, FtpPath path, Path real) throws IOException;
}
