package io.fsp.server.join;

import io.fsp.join.InviteCode;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The invites of a server, in {@code STATE-DIR/invites}: only each code's verifier is kept, never the code. An
 * invite is open until it expires, is used once, is revoked, or is burnt by {@link #MAX_WRONG} wrong codes; invites
 * are forgotten a week after they expired.
 */
public final class Invites {
    public static final String FILE = "invites";
    /** Wrong codes an invite takes before it is burnt: a guesser gets this many tries at 60 bits. */
    public static final int MAX_WRONG = 3;
    private static final Duration FORGET_AFTER = Duration.ofDays(7);

    private final StateFile file;

    public Invites(Path stateDir) {
        this.file = new StateFile(stateDir.resolve(FILE));
    }

    public Path path() {
        return file.path();
    }

    /** Every invite kept, oldest first; lines that do not read are skipped. */
    public List<Invite> list() throws IOException {
        return parse(file.read());
    }

    public Optional<Invite> find(String id) throws IOException {
        return list().stream().filter(i -> i.id().equals(id)).findFirst();
    }

    /** A new invite valid until {@code now + ttl}; the code is returned once and kept nowhere. */
    public InviteCode issue(Duration ttl, Instant now) throws IOException {
        AtomicReference<InviteCode> issued = new AtomicReference<>();
        file.update(lines -> {
            List<Invite> all = new ArrayList<>(parse(lines));
            all.removeIf(i -> now.isAfter(i.expires().plus(FORGET_AFTER)));
            InviteCode code;
            do {
                code = InviteCode.generate();
            } while (contains(all, code.id()));
            issued.set(code);
            all.add(new Invite(code.id(), code.verifier(), now.plus(ttl), Invite.State.OPEN, 0));
            return lines(all);
        });
        return issued.get();
    }

    /** Revokes an invite; returns its state before (empty: no such invite). */
    public Optional<Invite> revoke(String id) throws IOException {
        return change(id, i -> i.state() == Invite.State.OPEN ? i.with(Invite.State.REVOKED, i.wrong()) : i);
    }

    /** Counts a wrong code; the last one allowed burns the invite. Returns the invite after. */
    public Optional<Invite> wrongCode(String id) throws IOException {
        change(id, i -> i.with(i.state() == Invite.State.OPEN && i.wrong() + 1 >= MAX_WRONG ? Invite.State.BURNT
                : i.state(), i.wrong() + 1));
        return find(id);
    }

    /**
     * Marks an open, unexpired invite used; false when it no longer is (used, revoked, burnt or expired meanwhile):
     * of two exchanges that both got the code right, one wins.
     */
    public boolean use(String id, Instant now) throws IOException {
        Optional<Invite> before = change(id, i -> usable(i, now) ? i.with(Invite.State.USED, i.wrong()) : i);
        return before.isPresent() && usable(before.get(), now);
    }

    static boolean usable(Invite i, Instant now) {
        return i.state() == Invite.State.OPEN && now.isBefore(i.expires());
    }

    /** Applies {@code change} to invite {@code id}; returns it as it was before. */
    private Optional<Invite> change(String id, java.util.function.UnaryOperator<Invite> change) throws IOException {
        AtomicReference<Invite> before = new AtomicReference<>();
        file.update(lines -> {
            List<Invite> all = new ArrayList<>(parse(lines));
            all.replaceAll(i -> {
                if (!i.id().equals(id)) {
                    return i;
                }
                before.set(i);
                return change.apply(i);
            });
            return lines(all);
        });
        return Optional.ofNullable(before.get());
    }

    private static boolean contains(List<Invite> all, String id) {
        return all.stream().anyMatch(i -> i.id().equals(id));
    }

    private static List<Invite> parse(List<String> lines) {
        List<Invite> all = new ArrayList<>();
        for (String line : lines) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            try {
                all.add(Invite.parse(line));
            } catch (RuntimeException e) {
                // a damaged line: the invite it held is gone, the others stay usable
            }
        }
        return all;
    }

    private static List<String> lines(List<Invite> all) {
        List<String> lines = new ArrayList<>();
        lines.add("# fsp-server invites: ID VERIFIER EXPIRES(epoch s) STATE WRONG; change with fsp-server invite");
        all.forEach(i -> lines.add(i.line()));
        return lines;
    }
}
