package io.vaultgraph.neo4jlocal;

import java.io.DataInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.neo4j.configuration.GraphDatabaseInternalSettings;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.connectors.HttpsConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.configuration.ssl.ClientAuth;
import org.neo4j.configuration.ssl.SslPolicyConfig;
import org.neo4j.configuration.ssl.SslPolicyScope;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.config.Setting;

/**
 * Runs a persistent, embedded Neo4j Community DBMS with only the Bolt connector
 * enabled, so tests and developers get a real Neo4j without Docker.
 *
 * <p>Usage: {@code Launcher --home DIR [--port PORT] [--watch-stdin] [--password PW] [--tls-dir DIR]}
 *
 * <ul>
 *   <li>{@code --home} is the Neo4j home; the store lives under it, so stopping
 *       and starting again on the same home keeps the data.
 *   <li>{@code --port} is the Bolt port on 127.0.0.1; 0 or absent picks a free one.
 *   <li>{@code --watch-stdin} shuts down cleanly when stdin reaches EOF. A parent
 *       process (the Go test helper) hands us a pipe: when it dies for any
 *       reason (panic, os.Exit, SIGKILL) the kernel closes its end and we
 *       stop, so no orphaned JVM outlives a test binary.
 *   <li>{@code --password} turns authentication on, with user neo4j and this
 *       password (at least 8 characters), for tests of refused credentials.
 *   <li>{@code --tls-dir} makes Bolt accept TLS (optional: plain connections
 *       still work) with DIR/private.key (PKCS#8 PEM) and DIR/public.crt.
 * </ul>
 *
 * <p>stdout carries exactly one line for machines:
 * {@code NEO4J_READY bolt://127.0.0.1:PORT version=X}, printed once Bolt really
 * answers a handshake. Everything Neo4j or its libraries print goes to
 * {@code HOME/logs/launcher.log}; debug.log is in the same directory. Our own
 * short status/fatal messages go to stderr.
 */
public final class Launcher {
    private static final Duration BOLT_READY_TIMEOUT = Duration.ofMinutes(3);
    // Page cache kept small by default: test data sets are tiny and several
    // test binaries may each run their own instance on a 2-core CI machine.
    // Benchmarks size it for their store (-Dneo4jlocal.pagecache=2g, set by
    // neo4j-local.sh from NEO4J_LOCAL_PAGECACHE).
    private static final long PAGE_CACHE_BYTES = parseSize(System.getProperty("neo4jlocal.pagecache", "256m"));

    private static final PrintStream OUT = System.out;
    private static final PrintStream ERR = System.err;

    private static final Object LOCK = new Object();
    private static DatabaseManagementService dbms; // guarded by LOCK

    private Launcher() {}

    /** Bytes of a size like 512m, 2g, 300k or 1048576. */
    static long parseSize(String text) {
        String t = text.trim().toLowerCase();
        long unit = 1;
        switch (t.isEmpty() ? ' ' : t.charAt(t.length() - 1)) {
            case 'k' -> unit = 1L << 10;
            case 'm' -> unit = 1L << 20;
            case 'g' -> unit = 1L << 30;
            default -> { }
        }
        if (unit != 1) {
            t = t.substring(0, t.length() - 1);
        }
        try {
            return Long.parseLong(t) * unit;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad page cache size '" + text + "' (want e.g. 256m or 2g)");
        }
    }

    public static void main(String[] args) throws Exception {
        Path home = null;
        int port = 0;
        boolean watchStdin = false;
        String password = null;
        Path tlsDir = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--password" -> password = need(args, ++i, "--password");
                case "--tls-dir" -> tlsDir = Paths.get(need(args, ++i, "--tls-dir")).toAbsolutePath();
                case "--home" -> home = Paths.get(need(args, ++i, "--home"));
                case "--port" -> port = Integer.parseInt(need(args, ++i, "--port"));
                case "--watch-stdin" -> watchStdin = true;
                default -> die("unknown argument: " + args[i]);
            }
        }
        if (home == null) {
            die("usage: Launcher --home DIR [--port PORT] [--watch-stdin]");
        }
        home = home.toAbsolutePath();
        Path logs = home.resolve("logs");
        Files.createDirectories(logs);

        // Redirect before any Neo4j class is touched, so log4j's status logger,
        // Netty warnings and stray printlns all land in the log file, keeping
        // stdout clean for the NEO4J_READY line.
        Path logFile = logs.resolve("launcher.log");
        PrintStream log = new PrintStream(new FileOutputStream(logFile.toFile(), true), true, StandardCharsets.UTF_8);
        System.setOut(log);
        System.setErr(log);

        if (port == 0) {
            port = freePort();
        }

        // Registered before startup so a signal during startup still stops
        // whatever part of the DBMS already exists.
        Runtime.getRuntime().addShutdownHook(new Thread(Launcher::shutdown, "neo4j-local-shutdown"));

        if (watchStdin) {
            Thread watcher = new Thread(Launcher::watchStdin, "neo4j-local-stdin-watch");
            watcher.setDaemon(true);
            watcher.start();
        }

        String version;
        try {
            Map<Setting<?>, Object> cfg = new HashMap<>();
            cfg.put(BoltConnector.enabled, true);
            cfg.put(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port));
            cfg.put(BoltConnector.advertised_address, new SocketAddress("127.0.0.1", port));
            cfg.put(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED); // OPTIONAL with --tls-dir, below
            cfg.put(HttpConnector.enabled, false);
            cfg.put(HttpsConnector.enabled, false);
            // Local test server only: auth off, so the Go driver may use NoAuth
            // (basic auth tokens are accepted and ignored as well), unless a
            // test asks for a password.
            cfg.put(GraphDatabaseSettings.auth_enabled, password != null);
            if (tlsDir != null) {
                SslPolicyConfig bolt = SslPolicyConfig.forScope(SslPolicyScope.BOLT);
                cfg.put(bolt.enabled, true);
                cfg.put(bolt.base_directory, tlsDir);
                cfg.put(bolt.private_key, tlsDir.resolve("private.key"));
                cfg.put(bolt.public_certificate, tlsDir.resolve("public.crt"));
                cfg.put(bolt.client_auth, ClientAuth.NONE);
                cfg.put(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.OPTIONAL);
            }
            cfg.put(GraphDatabaseSettings.pagecache_memory, PAGE_CACHE_BYTES);
            // Test stores should not keep days of transaction logs.
            cfg.put(GraphDatabaseSettings.keep_logical_logs, "1 files");
            cfg.put(GraphDatabaseSettings.udc_enabled, false);
            // Netty's default 5 s quiet period, paid once per event-loop group,
            // makes every stop take ~10 s. Nothing here needs that grace time
            // and fault tests stop/start repeatedly. (Internal setting, but
            // stable within the 5.26 LTS line.)
            cfg.put(GraphDatabaseInternalSettings.netty_server_shutdown_quiet_period, 0);
            DatabaseManagementService service = new DatabaseManagementServiceBuilder(home)
                    .setConfig(cfg)
                    .build();
            synchronized (LOCK) {
                dbms = service;
            }
            GraphDatabaseService db = service.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
            if (!db.isAvailable(BOLT_READY_TIMEOUT.toMillis())) {
                throw new IllegalStateException("default database did not become available");
            }
            if (password != null) {
                service.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME).executeTransactionally(
                        "ALTER USER neo4j SET PASSWORD $pw CHANGE NOT REQUIRED", Map.of("pw", password));
            }
            version = db.executeTransactionally(
                    "CALL dbms.components() YIELD versions RETURN versions[0] AS v",
                    Map.of(),
                    r -> String.valueOf(r.next().get("v")));
            waitForBolt(port);
        } catch (Throwable e) {
            e.printStackTrace(log);
            ERR.println("neo4j-local: startup failed: " + e + " (see " + logFile + ")");
            ERR.flush();
            // exit() runs the shutdown hook, which stops a half-started DBMS.
            System.exit(1);
            return;
        }

        OUT.println("NEO4J_READY bolt://127.0.0.1:" + port + " version=" + version);
        OUT.flush();
        ERR.println("neo4j-local: home " + home + ", logs in " + logs);
        ERR.flush();

        // Park the main thread; the JVM exits via signal (shutdown hook) or
        // via the stdin watcher calling System.exit.
        new CountDownLatch(1).await();
    }

    private static void shutdown() {
        DatabaseManagementService service;
        synchronized (LOCK) {
            service = dbms;
            dbms = null;
        }
        if (service == null) {
            return;
        }
        ERR.println("neo4j-local: shutting down");
        ERR.flush();
        try {
            service.shutdown();
            ERR.println("neo4j-local: stopped");
        } catch (Throwable e) {
            ERR.println("neo4j-local: shutdown error: " + e);
        }
        ERR.flush();
    }

    private static void watchStdin() {
        try {
            InputStream in = System.in;
            byte[] buf = new byte[256];
            while (in.read(buf) >= 0) {
                // Ignore anything written; only EOF matters.
            }
        } catch (IOException ignored) {
            // A broken stdin means the parent is gone as well.
        }
        ERR.println("neo4j-local: stdin closed, stopping");
        ERR.flush();
        System.exit(0);
    }

    /**
     * Polls until the Bolt connector completes a protocol handshake, which is a
     * stronger signal than the port merely accepting TCP connections.
     */
    private static void waitForBolt(int port) throws InterruptedException {
        long deadline = System.nanoTime() + BOLT_READY_TIMEOUT.toNanos();
        Exception last = null;
        while (System.nanoTime() < deadline) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
                s.setSoTimeout(2000);
                OutputStream o = s.getOutputStream();
                // Magic preamble, then four proposals: 5.x (range 0..8), 4.4, none, none.
                o.write(new byte[] {
                    (byte) 0x60, (byte) 0x60, (byte) 0xB0, (byte) 0x17,
                    0, 8, 8, 5,
                    0, 0, 4, 4,
                    0, 0, 0, 0,
                    0, 0, 0, 0,
                });
                o.flush();
                byte[] reply = new byte[4];
                new DataInputStream(s.getInputStream()).readFully(reply);
                if (reply[3] != 0) {
                    return;
                }
                last = new IllegalStateException("Bolt refused all proposed protocol versions");
            } catch (IOException e) {
                last = e;
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("Bolt did not answer on 127.0.0.1:" + port, last);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 0, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static String need(String[] args, int i, String flag) {
        if (i >= args.length) {
            die(flag + " needs a value");
        }
        return args[i];
    }

    private static void die(String msg) {
        ERR.println("neo4j-local: " + msg);
        System.exit(2);
    }
}
