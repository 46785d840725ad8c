package io.fsp.server.ftp;

import io.fsp.config.ConfigSource;
import io.fsp.server.auth.LoginThrottle;
import io.fsp.server.auth.PasswordHasher;
import io.fsp.server.auth.UserAccount;
import io.fsp.server.auth.UserStore;
import io.fsp.server.config.ServerConfig;
import io.fsp.server.config.ServerSettings;
import io.fsp.server.ftp.command.StandardCommands;
import io.fsp.tls.Certificates;
import io.fsp.tls.KeyMaterial;
import io.fsp.tls.SslContexts;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.TimeUnit;

/** Server contexts for handler tests: blocking work runs inline, so a test drives everything itself. */
final class TestContexts {
    static final KeyMaterial KEY = Certificates.selfSigned("test");
    private static final String HASH = PasswordHasher.hash("secret");

    private TestContexts() {
    }

    static FtpServerContext context(Path root, Map<String, List<String>> settings) throws Exception {
        ServerConfig config = ServerSettings.ALL.load(ConfigSource.of("test", settings));
        return new FtpServerContext(config.ftpCore(), SslContexts.server(KEY),
                SslContexts.serverWithoutSessionTickets(KEY), KEY.fingerprint(),
                new UserStore(List.of(new UserAccount("alice", HASH, root, true)), Optional.empty()),
                new LoginThrottle(config.limits().loginFailureDelay()), StandardCommands.create(), new InlineExecutor(), new InlineExecutor(),
                new ConnectionLimits(config.limits().maxConnections(), config.limits().maxConnectionsPerAddress()),
                new PassivePorts(Optional.empty()), Optional.empty());
    }

    static final class InlineExecutor extends AbstractExecutorService {
        @Override
        public void execute(Runnable command) {
            command.run();
        }

        @Override
        public void shutdown() {
        }

        @Override
        public List<Runnable> shutdownNow() {
            return List.of();
        }

        @Override
        public boolean isShutdown() {
            return false;
        }

        @Override
        public boolean isTerminated() {
            return false;
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) {
            return true;
        }
    }
}
