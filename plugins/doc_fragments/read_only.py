# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function


class ModuleDocFragment(object):
    """The attributes of a module that only reads: the same run in check mode, nothing to diff."""

    DOCUMENTATION = r"""
attributes:
  check_mode:
    description: Only reads; runs the same in check mode.
    support: full
  diff_mode:
    description: Changes nothing, so there is nothing to diff.
    support: none
"""
