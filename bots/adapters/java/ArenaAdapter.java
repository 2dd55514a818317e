import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;

/**
 * Runs a KotH {@code Player} class unmodified as an arena bot over the {@code lines} protocol:
 * one JVM per game, one request line in and one reply line out per round.
 *
 * <p>Usage: {@code java -cp classes ArenaAdapter PlayerClassName}
 */
public final class ArenaAdapter {
    public static void main(String[] argv) throws Exception {
        if (argv.length != 1) {
            System.err.println("usage: java ArenaAdapter PlayerClassName");
            System.exit(2);
        }
        Player player = (Player) Class.forName(argv[0]).getDeclaredConstructor().newInstance();
        System.err.println("arena adapter: playing as " + player.getName());
        // Replies must not be mixed with anything the player prints: keep stdout for them.
        PrintStream replies = new PrintStream(System.out, false, "UTF-8");
        System.setOut(System.err);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        String line;
        while ((line = in.readLine()) != null) {
            String[] fields = line.trim().split(" +");
            String[] args = new String[6];
            for (int i = 0; i < 6; i++) {
                // The lines protocol writes an empty field as "-"; KotH players expect "".
                String f = i < fields.length ? fields[i] : "";
                args[i] = f.equals("-") ? "" : f;
            }
            int[] move = player.getMove(args);
            replies.println(move[0] + " " + move[1]);
            replies.flush();
        }
    }
}
