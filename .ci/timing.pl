#!/usr/bin/perl
# CI's clock. Two uses:
#   ... | timing.pl record FILE PART   passes Maven's output through unchanged and appends to FILE,
#                                      under the part's name, when each plugin execution of each
#                                      module began, each test class's time and Maven's summary
#                                      line for each module (parts may run at once)
#   timing.pl table FILE BUDGET_S      prints the time table: per part, when it began and its wall
#                                      time, the modules of 30 s or more, the test executions
#                                      (surefire) of 30 s or more and the test classes of a minute
#                                      or more; then the total wall time against the budget, and
#                                      exits 1 if it is over
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
      printf $out "%.3f\t%s\tmojo\t%s\t%s (%s)\n", $t, $part, $3, $1, $2;
    } elsif ($line =~ /^\[INFO\] (\S.*?) \.{3,} (SUCCESS|FAILURE|SKIPPED) ?\[? *([\d:.]+ (?:s|min))?/) {
      printf $out "%.3f\t%s\tmodule\t%s\t%s\t%s\n", $t, $part, $1, $2, $3 // '';
    } elsif ($line =~ /Tests run: (\d+).*Time elapsed: ([\d.,]+) s.* -- in (\S+)/) {
      (my $s = $2) =~ s/,//g;
      printf $out "%.3f\t%s\tclass\t%s\t%s\t%s\n", $t, $part, $3, $s, $1;
    }
  }
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
    my $p = { name => $name, start => $t, end => $t, mojos => {}, order => [], open => {},
              modules => [], classes => [], tests => 0 };
    push @parts, $p;
    $byName{$name} = $p;
    next;
  }
  my $p = $byName{$name} or next;
  if ($kind eq 'part-end') {
    $p->{end} = $t;
    close_mojo($p, $_, $t) for keys %{$p->{open}};
  } elsif ($kind eq 'mojo') {
    # a module's plugin execution lasts until its next one begins (modules may build at once,
    # their lines interleaved, under -T)
    my ($module, $mojo) = @rest;
    close_mojo($p, $module, $t);
    $p->{open}{$module} = ["$module $mojo", $t];
  } elsif ($kind eq 'module') {
    push @{$p->{modules}}, [@rest];
  } elsif ($kind eq 'class') {
    push @{$p->{classes}}, [$rest[0], $rest[1]];
    $p->{tests} += $rest[2];
  }
}

sub close_mojo {
  my ($p, $module, $t) = @_;
  my $open = delete $p->{open}{$module} or return;
  my ($mojo, $start) = @$open;
  push @{$p->{order}}, $mojo unless exists $p->{mojos}{$mojo};
  $p->{mojos}{$mojo} += $t - $start;
}

sub seconds {
  my $text = shift;
  return 0 unless $text;
  return $1 * 60 + $2 if $text =~ /^(\d+):([\d.]+) min$/;
  return $1 if $text =~ /^([\d.]+) s$/;
  return 0;
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
  # Maven's own figure for each module of 30 s or more (its reactor summary), then each test
  # execution of 30 s or more, then each test class of a minute or more
  for my $m (@{$p->{modules}}) {
    my ($module, $status, $took) = @$m;
    next unless seconds($took) >= 30 || $status ne 'SUCCESS';
    printf "  %-70s %9s %9s\n", "module $module", $status eq 'SUCCESS' ? '' : $status, clock(seconds($took));
  }
  for my $m (@{$p->{order}}) {
    next unless $m =~ /surefire:\S+:test/ && $p->{mojos}{$m} >= 30;
    (my $label = $m) =~ s/ surefire:\S+:test / tests /;
    printf "  %-70s %9s %9s\n", $label, '', clock($p->{mojos}{$m});
  }
  my @slow = sort { $b->[1] <=> $a->[1] } grep { $_->[1] >= 60 } @{$p->{classes}};
  for my $c (@slow) {
    (my $short = $c->[0]) =~ s/.*\.//;
    printf "  %-70s %9s %9s\n", "test class $short", '', clock($c->[1]);
  }
}
printf "%-72s %9s %9s\n", "total ($tests tests), budget " . clock($budget), '', clock($total);
if ($total > $budget) {
  printf "CI took %s, over its budget of %s: make room before adding more\n", clock($total), clock($budget);
  exit 1;
}
exit 0;
