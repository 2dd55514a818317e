#!/usr/bin/perl
# No `use strict`/`use warnings`: a new process runs every round, and loading them doubles perl's start-up.
# Morra, argv protocol. Counters the opponent's last move: expects it to show its last choice
# again, and shows the highest number the opponent did not just guess.
our ($mine, $myguesses, $myscore, $theirs, $theirguesses) = map { $_ // '' } @ARGV;
if ($theirs eq '') {
    print "5 3\n";
    exit;
}
my $guess = substr($theirs, -1);
my $their_last_guess = substr($theirguesses, -1);
my $choice = $their_last_guess == 5 ? 4 : 5;
print "$choice $guess\n";
