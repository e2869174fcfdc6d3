#!/usr/bin/env perl
# A Perl bot whose code is in lib/: run from its folder as `perl -Ilib bin/bot.pl`.
use strict;
use warnings;
use Hearts;

Hearts::play('perl-first-legal');
