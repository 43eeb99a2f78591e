package io.ckc.protocol.auth;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The nodes that may connect, as the operator provisions them: a JSON file of nodes, each with its key (derived from
 * the node's secret by {@link NodeKeys#nodeKey}, so the secret itself is kept by the node alone) and its
 * {@link Grants}, and of fleets, each with the key its nodes' keys derive from. Keys are never logged: this class
 * prints none. The file is read again when it changes, at most once a second, so nodes are added without a restart.
 */
public final class CredentialStore {

    /** A node the store knows: its key and what it may do. */
    public record Credential(Identity identity, byte[] key, Grants grants) {
        @Override
        public String toString() {
            return "Credential[" + identity.text() + "]";
        }
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    record NodeEntry(@JsonProperty("node") UUID node, @JsonProperty("key") String key,
                     @JsonProperty("publish") List<String> publish, @JsonProperty("groupcast") List<String> groupcast) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    record FleetEntry(@JsonProperty("fleet") String fleet, @JsonProperty("key") String key,
                      @JsonProperty("publish") List<String> publish, @JsonProperty("groupcast") List<String> groupcast) {
    }

    record Contents(@JsonProperty("nodes") List<NodeEntry> nodes, @JsonProperty("fleets") List<FleetEntry> fleets) {
        Contents {
            nodes = nodes == null ? List.of() : List.copyOf(nodes);
            fleets = fleets == null ? List.of() : List.copyOf(fleets);
        }
    }

    /**
     * The file as read. {@code grants}: one {@link Grants} object for each distinct set of rights a lookup handed out,
     * so the sessions of a fleet's million nodes share one (with its lists, about 70 bytes a session otherwise).
     */
    private record Snapshot(Map<UUID, NodeEntry> nodes, Map<String, FleetEntry> fleets, Version version,
                            Map<Grants, Grants> grants) {

        Snapshot(Map<UUID, NodeEntry> nodes, Map<String, FleetEntry> fleets, Version version) {
            this(nodes, fleets, version, new ConcurrentHashMap<>());
        }

        Grants grants(List<String> publish, List<String> groupcast) {
            Grants grants = new Grants(publish == null ? Grants.DEFAULT.publish() : publish,
                    groupcast == null ? Grants.DEFAULT.groupcast() : groupcast);
            return this.grants.computeIfAbsent(grants, g -> g);
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    private static final long RECHECK_MS = 1_000;

    /**
     * Which file was read: its modification time and its identity on the file system (its inode where there is one).
     * The store is replaced by an atomic move, so a new file is a new inode even when written within the same
     * millisecond as the last, which the time alone would not tell.
     */
    private record Version(long modifiedMs, Object fileKey) {
        static Version of(Path file) throws IOException {
            BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
            return new Version(attributes.lastModifiedTime().toMillis(), attributes.fileKey());
        }
    }

    private final Path file;
    private volatile Snapshot snapshot;
    private volatile long checkedAt;

    private CredentialStore(Path file, Snapshot snapshot) {
        this.file = file;
        this.snapshot = snapshot;
        this.checkedAt = System.currentTimeMillis();
    }

    /** Reads the store; a missing or unreadable file is an error that names it. */
    public static CredentialStore open(Path file) {
        return new CredentialStore(file, load(file));
    }

    /** The node's credential, if the store grants it one. */
    public Optional<Credential> lookup(Identity identity) {
        Snapshot current = current();
        if (identity.fleet() == null) {
            NodeEntry entry = current.nodes().get(identity.node());
            return Optional.ofNullable(entry).map(e -> new Credential(identity, decode(e.key()),
                    current.grants(e.publish(), e.groupcast())));
        }
        FleetEntry fleet = current.fleets().get(identity.fleet());
        return Optional.ofNullable(fleet).map(f -> new Credential(identity,
                NodeKeys.fleetNodeKey(decode(f.key()), f.fleet(), identity.node()), current.grants(f.publish(), f.groupcast())));
    }

    /** A fleet's key, for the program that runs its nodes (the simulator). */
    public Optional<byte[]> fleetKey(String fleet) {
        return Optional.ofNullable(current().fleets().get(fleet)).map(f -> decode(f.key()));
    }

    public int nodes() {
        return current().nodes().size();
    }

    public int fleets() {
        return current().fleets().size();
    }

    /** Adds or replaces a node in the file, readable by its owner only. */
    public static void putNode(Path file, UUID node, byte[] key, Grants grants) {
        Contents contents = Files.exists(file) ? read(file) : new Contents(List.of(), List.of());
        List<NodeEntry> nodes = new ArrayList<>(contents.nodes());
        nodes.removeIf(n -> n.node().equals(node));
        nodes.add(new NodeEntry(node, encode(key), grants.publish(), grants.groupcast()));
        write(file, new Contents(nodes, contents.fleets()));
    }

    /** Adds or replaces a fleet in the file, readable by its owner only. */
    public static void putFleet(Path file, String fleet, byte[] key, Grants grants) {
        if (fleet.isEmpty() || fleet.contains("/")) {
            throw new IllegalArgumentException("a fleet's name is not empty and has no '/': " + fleet);
        }
        Contents contents = Files.exists(file) ? read(file) : new Contents(List.of(), List.of());
        List<FleetEntry> fleets = new ArrayList<>(contents.fleets());
        fleets.removeIf(f -> f.fleet().equals(fleet));
        fleets.add(new FleetEntry(fleet, encode(key), grants.publish(), grants.groupcast()));
        write(file, new Contents(contents.nodes(), fleets));
    }

    /**
     * Reads the file again at once if it changed, whatever the time of the last check: for a node whose credential
     * just failed, which may have been issued since (the store is otherwise checked at most once a second, so a key
     * issued within a second of a check was refused until the next one).
     */
    public void refresh() {
        recheck(System.currentTimeMillis());
    }

    private Snapshot current() {
        long now = System.currentTimeMillis();
        if (now - checkedAt >= RECHECK_MS) {
            recheck(now);
        }
        return snapshot;
    }

    private void recheck(long now) {
        checkedAt = now;
        try {
            if (!Version.of(file).equals(snapshot.version())) {
                snapshot = load(file);
            }
        } catch (IOException | UncheckedIOException | IllegalArgumentException e) {
            // keep the last good store: a file half written or removed must not lock every node out
        }
    }

    private static Snapshot load(Path file) {
        try {
            Version version = Version.of(file);
            Contents contents = read(file);
            Map<UUID, NodeEntry> nodes = new HashMap<>();
            for (NodeEntry node : contents.nodes()) {
                if (node.node() == null || node.key() == null) {
                    throw new IllegalArgumentException("credential store " + file + ": a node without \"node\" or \"key\"");
                }
                decode(node.key());
                nodes.put(node.node(), node);
            }
            Map<String, FleetEntry> fleets = new HashMap<>();
            for (FleetEntry fleet : contents.fleets()) {
                if (fleet.fleet() == null || fleet.key() == null) {
                    throw new IllegalArgumentException("credential store " + file + ": a fleet without \"fleet\" or \"key\"");
                }
                decode(fleet.key());
                fleets.put(fleet.fleet(), fleet);
            }
            return new Snapshot(Map.copyOf(nodes), Map.copyOf(fleets), version);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the credential store " + file, e);
        }
    }

    private static Contents read(Path file) {
        try {
            return JSON.readValue(file.toFile(), Contents.class);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the credential store " + file + ": " + e.getMessage(), e);
        }
    }

    private static void write(Path file, Contents contents) {
        try {
            SecretFiles.write(file, out -> JSON.writeValue(out, contents));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the credential store " + file, e);
        }
    }

    private static byte[] decode(String key) {
        byte[] bytes = Base64.getDecoder().decode(key);
        if (bytes.length < 16) {
            throw new IllegalArgumentException("a key in the credential store is shorter than 16 bytes");
        }
        return bytes;
    }

    private static String encode(byte[] key) {
        return Base64.getEncoder().encodeToString(key);
    }
}
