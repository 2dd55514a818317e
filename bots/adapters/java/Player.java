/** The interface of the Morra King-of-the-Hill's Java entries, unchanged. */
public interface Player {
    /** Identifies the bot. */
    public String getName();

    /**
     * Takes six strings: mychoices myguesses myscore opponentchoices opponentguesses
     * opponentscore, and returns {choice, guess}.
     */
    public int[] getMove(String[] args);
}
