package io.fsp.it.harness;

import io.fsp.client.control.ControlChannel;
import io.fsp.client.control.FspConversation;
import io.fsp.extension.Announcement;
import io.fsp.extension.OriginSignature;
import io.fsp.token.CapabilityToken;
import io.fsp.token.TransferId;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A FRET's announcements as the client reads them, for tests that look at the announcements themselves: read through
 * {@link FspConversation} and parsed by the client's codec, so that no test splits the lines by hand. An evacuation's
 * signatures ({@code SIG}) are among the {@link #lines} only.
 */
public final class Fret {
    /** How long a reply after the announcements may take. */
    private static final Duration REPLY_TIMEOUT = Duration.ofMinutes(1);

    private final List<String> lines;
    private final List<Announcement> announcements;

    private Fret(List<String> lines, List<Announcement> announcements) {
        this.lines = lines;
        this.announcements = announcements;
    }

    /** FRET {@code path} on {@code c}, read up to the 226. */
    public static Fret read(ControlChannel c, String path) throws IOException {
        FspConversation fsp = new FspConversation(c, "", REPLY_TIMEOUT);
        fsp.retrieve(path);
        List<String> lines = new ArrayList<>();
        fsp.announcements(lines::add, FspConversation.NO_DEADLINE);
        return of(lines);
    }

    /**
     * FRET {@code path} on {@code c}, read up to its {@code blocks}-th BLK line and no further: the rest stays unread,
     * and striping waits for the client (or stops once it leaves).
     */
    public static Fret readBlocks(ControlChannel c, String path, int blocks) throws IOException {
        FspConversation fsp = new FspConversation(c, "", REPLY_TIMEOUT);
        fsp.retrieve(path);
        List<String> lines = new ArrayList<>();
        int[] seen = {0};
        fsp.announcements(line -> {
            lines.add(line);
            if (!OriginSignature.isSignature(line) && FspConversation.parse(line) instanceof Announcement.Block) {
                seen[0]++;
            }
            return seen[0] < blocks;
        }, FspConversation.NO_DEADLINE);
        return of(lines);
    }

    /** The announcements of {@code lines}, {@code 151} lines without {@code 151 } (a FRET read some other way). */
    public static Fret of(List<String> lines) throws IOException {
        List<Announcement> announcements = new ArrayList<>(lines.size());
        for (String l : lines) {
            if (!OriginSignature.isSignature(l)) {
                announcements.add(FspConversation.parse(l));
            }
        }
        return new Fret(List.copyOf(lines), List.copyOf(announcements));
    }

    /** The lines as the server sent them (without {@code 151 }), signatures included: for the text itself. */
    public List<String> lines() {
        return lines;
    }

    public List<Announcement> announcements() {
        return announcements;
    }

    /** The last of an evacuation's signatures ({@code SIG}), or null. */
    public OriginSignature signature() {
        String last = null;
        for (String l : lines) {
            last = OriginSignature.isSignature(l) ? l : last;
        }
        return last == null ? null : OriginSignature.parse(last);
    }

    /** The announcements of one kind, in their order. */
    public <T extends Announcement> List<T> all(Class<T> kind) {
        return announcements.stream().filter(kind::isInstance).map(kind::cast).toList();
    }

    /** The {@code FSP} line. */
    public Announcement.Transfer transfer() {
        return all(Announcement.Transfer.class).get(0);
    }

    public TransferId id() {
        return transfer().id();
    }

    public CapabilityToken token() {
        return all(Announcement.Token.class).get(0).token();
    }

    public List<Announcement.Relay> relays() {
        return all(Announcement.Relay.class);
    }

    /** The {@code RELAY} line of relay {@code index}. */
    public Announcement.Relay relay(int index) {
        return relays().stream().filter(r -> r.index() == index).findFirst().orElseThrow();
    }

    public List<Announcement.Block> blocks() {
        return all(Announcement.Block.class);
    }

    /** The sequence numbers of the blocks relay {@code index} holds. */
    public List<Long> blocksOn(int index) {
        return blocks().stream().filter(b -> holders(b).contains(index)).map(Announcement.Block::seq).toList();
    }

    /** The relays that hold block {@code b}, the one to ask first first; none for a block not placed on relays. */
    public static List<Integer> holders(Announcement.Block b) {
        return b.placement() instanceof Announcement.Placement.Relays r ? r.holders() : List.of();
    }

    @Override
    public String toString() {
        return lines.toString();
    }
}
