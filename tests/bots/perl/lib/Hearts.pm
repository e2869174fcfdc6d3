# A first-legal Hearts bot's answers (docs/protocol.md): hello with version 1, pass the first
# `count` legal cards, play the first legal card, never declare, moon add_to_others.
package Hearts;

use strict;
use warnings;
use JSON::PP;

sub answer {
    my ($message, $name) = @_;
    my $type = $message->{type} // '';
    return { type => 'hello', version => 1, name => $name } if $type eq 'hello';
    my $id = $message->{id};
    if ($type eq 'pass_request') {
        my @legal = @{ $message->{legal} };
        return { type => 'pass', id => $id, cards => [ @legal[ 0 .. $message->{count} - 1 ] ] };
    }
    return { type => 'play', id => $id, card => $message->{legal}[0] } if $type eq 'play_request';
    return { type => 'declare', id => $id, declare => JSON::PP::false } if $type eq 'declare_request';
    return { type => 'moon', id => $id, choice => 'add_to_others' } if $type eq 'moon_request';
    return undef;
}

sub ends {
    my ($message) = @_;
    my $type = $message->{type} // '';
    return $type eq 'goodbye' || ($type eq 'error' && $message->{fatal});
}

sub play {
    my ($name) = @_;
    my $json = JSON::PP->new->utf8->canonical;
    $| = 1;    # flush every line: a reply left in the buffer is a timeout
    while (my $line = <STDIN>) {
        my $message = $json->decode($line);
        my $reply = answer($message, $name);
        if (defined $reply) {
            print $json->encode($reply), "\n";
        } elsif (ends($message)) {
            last;
        }
    }
}

1;
