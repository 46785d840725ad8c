package io.fsp.server.join;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@code fsp-server invite} and {@code fsp-server relays} change while the server runs: a thread waits on the
 * state directory (inotify, no polling) and, when {@code joined-relays} was replaced, has the server apply it; when
 * {@code invites} was, logs the invites issued and revoked since it last looked, so the running server's log holds
 * every issue, use, refusal and revocation.
 */
public final class StateWatch implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(StateWatch.class);
    private final WatchService watch;
    private final Invites invites;
    private final Runnable relaysChanged;
    private Map<String, Invite> seen;

    private StateWatch(WatchService watch, Invites invites, Runnable relaysChanged) {
        this.watch = watch;
        this.invites = invites;
        this.relaysChanged = relaysChanged;
    }

    /** Watches {@code stateDir} (made if missing) until closed; a directory that cannot be watched is logged. */
    public static StateWatch start(Path stateDir, Runnable relaysChanged) throws IOException {
        Files.createDirectories(stateDir);
        WatchService service = stateDir.getFileSystem().newWatchService();
        stateDir.register(service, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY);
        // A file replaced by a rename arrives as ENTRY_CREATE.
        StateWatch w = new StateWatch(service, new Invites(stateDir), relaysChanged);
        w.seen = w.snapshot();
        Thread t = new Thread(w::run, "fsp-state-watch");
        t.setDaemon(true);
        t.start();
        return w;
    }

    private void run() {
        try {
            while (true) {
                WatchKey key = watch.take();
                boolean relays = false;
                boolean invitesChanged = false;
                for (WatchEvent<?> e : key.pollEvents()) {
                    String name = String.valueOf(e.context());
                    relays |= name.equals(JoinedRelays.FILE) || e.kind() == StandardWatchEventKinds.OVERFLOW;
                    invitesChanged |= name.equals(Invites.FILE) || e.kind() == StandardWatchEventKinds.OVERFLOW;
                }
                key.reset();
                try {
                    if (relays) {
                        relaysChanged.run();
                    }
                    if (invitesChanged) {
                        logChanges();
                    }
                } catch (RuntimeException e) {
                    log.warn("state directory change not applied: {}", e.toString(), e);
                }
            }
        } catch (InterruptedException | ClosedWatchServiceException e) {
            // closed with the server
        }
    }

    private synchronized void logChanges() {
        Map<String, Invite> now = snapshot();
        for (Invite i : now.values()) {
            Invite before = seen.get(i.id());
            if (before == null) {
                log.info("invite {} issued, expires {}", i.id(), i.expires());
            } else if (before.state() != Invite.State.REVOKED && i.state() == Invite.State.REVOKED) {
                log.info("invite {} revoked", i.id());
            }
        }
        seen = now;
    }

    private Map<String, Invite> snapshot() {
        Map<String, Invite> all = new HashMap<>();
        try {
            List<Invite> list = invites.list();
            list.forEach(i -> all.put(i.id(), i));
        } catch (IOException e) {
            log.warn("cannot read {}: {}", invites.path(), e.toString());
        }
        return all;
    }

    @Override
    public void close() {
        try {
            watch.close();
        } catch (IOException e) {
            // closing
        }
    }
}
