#!/usr/bin/perl
# CI's clock. Two uses:
#   ... | timing.pl record FILE PART   passes Maven's output through unchanged and appends to FILE
#                                      when each plugin execution of each module began, and each
#                                      test class's time, under the part's name
#   timing.pl table FILE BUDGET_S      prints the time table: per part, its wall time, the test
#                                      executions (surefire) that took 30 s or more, the slowest
#                                      test classes, and what is left (compiling, packaging,
#                                      gates, short tests); then the total against the budget
use strict;
use warnings;
use Time::HiRes qw(time);

my $mode = shift @ARGV // '';
if ($mode eq 'record') {
  my ($file, $part) = @ARGV;
  open(my $out, '>>', $file) or die "timing.pl: $file: $!";
  $out->autoflush(1);
  $| = 1;
  printf $out "%.3f\tpart-start\t%s\n", time, $part;
  while (my $line = <STDIN>) {
    print $line;
    my $t = time;
    if ($line =~ /^\[INFO\] --- (\S+) \((\S+)\) @ (\S+) ---/) {
      printf $out "%.3f\tmojo\t%s %s (%s)\n", $t, $3, $1, $2;
    } elsif ($line =~ /^\[INFO\] -+< \S+ >-+$/ || $line =~ /Reactor Summary/) {
      printf $out "%.3f\tmojo\t-\n", $t;
    } elsif ($line =~ /Tests run: (\d+).*Time elapsed: ([\d.,]+) s.* -- in (\S+)/) {
      (my $s = $2) =~ s/,//g;
      printf $out "%.3f\tclass\t%s\t%s\t%s\n", $t, $3, $s, $1;
    }
  }
  printf $out "%.3f\tmojo\t-\n", time;
  printf $out "%.3f\tpart-end\t%s\n", time, $part;
  exit 0;
}
if ($mode ne 'table') {
  die "usage: timing.pl record FILE PART | timing.pl table FILE BUDGET_SECONDS\n";
}

my ($file, $budget) = @ARGV;
open(my $in, '<', $file) or die "timing.pl: $file: $!";
my (@parts, %part, $current, $mojo, $mojoStart);
while (my $line = <$in>) {
  chomp $line;
  my ($t, $kind, @rest) = split /\t/, $line;
  if ($kind eq 'part-start') {
    $current = { name => $rest[0], start => $t, end => $t, mojos => {}, order => [], classes => [], tests => 0 };
    push @parts, $current;
    $mojo = undef;
  } elsif ($kind eq 'part-end') {
    $current->{end} = $t;
  } elsif ($kind eq 'mojo') {
    if (defined $mojo) {
      push @{$current->{order}}, $mojo unless exists $current->{mojos}{$mojo};
      $current->{mojos}{$mojo} += $t - $mojoStart;
    }
    ($mojo, $mojoStart) = $rest[0] eq '-' ? (undef, undef) : ($rest[0], $t);
  } elsif ($kind eq 'class') {
    push @{$current->{classes}}, [$rest[0], $rest[1]];
    $current->{tests} += $rest[2];
  }
}

sub clock {
  my $s = int(shift() + 0.5);
  return sprintf('%dm %02ds', int($s / 60), $s % 60);
}

my $total = 0;
my $tests = 0;
printf "\n%-72s %9s\n", 'CI time table', 'wall';
for my $p (@parts) {
  my $wall = $p->{end} - $p->{start};
  $total += $wall;
  $tests += $p->{tests};
  printf "%-72s %9s\n", "$p->{name} ($p->{tests} tests)", clock($wall);
  my $rest = $wall;
  for my $m (@{$p->{order}}) {
    next unless $m =~ /surefire:\S+:test/ && $p->{mojos}{$m} >= 30;
    $rest -= $p->{mojos}{$m};
    (my $label = $m) =~ s/ surefire:\S+:test / tests /;
    printf "  %-70s %9s\n", $label, clock($p->{mojos}{$m});
    # the slowest classes of the part (a class belongs to the execution that printed it)
  }
  my @slow = sort { $b->[1] <=> $a->[1] } grep { $_->[1] >= 60 } @{$p->{classes}};
  for my $c (@slow) {
    (my $short = $c->[0]) =~ s/.*\.//;
    printf "    %-68s %9s\n", "of which $short", clock($c->[1]);
  }
  printf "  %-70s %9s\n", 'the rest: compiling, packaging, gates, shorter test runs', clock($rest);
}
printf "%-72s %9s\n", "total ($tests tests), budget " . clock($budget), clock($total);
if ($total > $budget) {
  printf "CI took %s, over its budget of %s: make room before adding more\n", clock($total), clock($budget);
  exit 1;
}
exit 0;
