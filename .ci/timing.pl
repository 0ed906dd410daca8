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
  printf $out "%.3f\t%s\tpart-start\n", time, $part;
  while (my $line = <STDIN>) {
    print $line;
    my $t = time;
    if ($line =~ /^\[INFO\] --- (\S+) \((\S+)\) @ (\S+) ---/) {
      printf $out "%.3f\t%s\tmojo\t%s %s (%s)\n", $t, $part, $3, $1, $2;
    } elsif ($line =~ /^\[INFO\] -+< \S+ >-+$/ || $line =~ /Reactor Summary/) {
      printf $out "%.3f\t%s\tmojo\t-\n", $t, $part;
    } elsif ($line =~ /Tests run: (\d+).*Time elapsed: ([\d.,]+) s.* -- in (\S+)/) {
      (my $s = $2) =~ s/,//g;
      printf $out "%.3f\t%s\tclass\t%s\t%s\t%s\n", $t, $part, $3, $s, $1;
    }
  }
  printf $out "%.3f\t%s\tmojo\t-\n", time, $part;
  printf $out "%.3f\t%s\tpart-end\n", time, $part;
  exit 0;
}
if ($mode ne 'table') {
  die "usage: timing.pl record FILE PART | timing.pl table FILE BUDGET_SECONDS\n";
}

my ($file, $budget) = @ARGV;
open(my $in, '<', $file) or die "timing.pl: $file: $!";
# parts may run at once: each line names its part
my (@parts, %byName);
my ($first, $last);
while (my $line = <$in>) {
  chomp $line;
  my ($t, $name, $kind, @rest) = split /\t/, $line;
  $first = $t if !defined $first || $t < $first;
  $last = $t if !defined $last || $t > $last;
  if ($kind eq 'part-start') {
    my $p = { name => $name, start => $t, end => $t, mojos => {}, order => [], classes => [], tests => 0 };
    push @parts, $p;
    $byName{$name} = $p;
    next;
  }
  my $p = $byName{$name} or next;
  if ($kind eq 'part-end') {
    $p->{end} = $t;
  } elsif ($kind eq 'mojo') {
    if (defined $p->{mojo}) {
      push @{$p->{order}}, $p->{mojo} unless exists $p->{mojos}{$p->{mojo}};
      $p->{mojos}{$p->{mojo}} += $t - $p->{mojoStart};
    }
    ($p->{mojo}, $p->{mojoStart}) = $rest[0] eq '-' ? (undef, undef) : ($rest[0], $t);
  } elsif ($kind eq 'class') {
    push @{$p->{classes}}, [$rest[0], $rest[1]];
    $p->{tests} += $rest[2];
  }
}

sub clock {
  my $s = int(shift() + 0.5);
  return sprintf('%dm %02ds', int($s / 60), $s % 60);
}

# the total is the wall time from the first part's start to the last part's end
my $total = defined $first ? $last - $first : 0;
my $tests = 0;
printf "\n%-72s %9s %9s\n", 'CI time table', 'began', 'wall';
for my $p (@parts) {
  my $wall = $p->{end} - $p->{start};
  $tests += $p->{tests};
  printf "%-72s %9s %9s\n", "$p->{name} ($p->{tests} tests)", '+' . clock($p->{start} - $first), clock($wall);
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
printf "%-72s %9s %9s\n", "total ($tests tests), budget " . clock($budget), '', clock($total);
if ($total > $budget) {
  printf "CI took %s, over its budget of %s: make room before adding more\n", clock($total), clock($budget);
  exit 1;
}
exit 0;
