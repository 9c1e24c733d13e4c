"""Sphinx settings of the collection's HTML docs, which `make docs` builds with no network at hand.

antsibull-docs' `sphinx-init` writes a conf.py like this one, plus intersphinx inventories of Python, Jinja
and Ansible's docs that it downloads on every build. Here there are none: the labels of Ansible's own docs
that the generated pages name (ansible.builtin's modules, other collections, "Common return values") show as
plain text instead of links. A label of this collection or of its guides that resolves nowhere still fails
the build.
"""

project = "kafkaops.cluster"
copyright = "kafkaops.cluster developers"
html_title = "kafkaops.cluster documentation"
html_short_title = "kafkaops.cluster"

extensions = ["sphinx_antsibull_ext"]

pygments_style = "ansible"
highlight_language = "YAML+Jinja"

html_theme = "sphinx_ansible_theme"
# The theme's sidebar services and its top bar's links are docs.ansible.com's, not this collection's.
html_theme_options = {"show_extranav": False, "show_rtd_ethical_ads": False, "display_version": False,
                      "topbar_links": {}}
html_show_sphinx = False
html_use_smartypants = True
html_use_modindex = False
html_use_index = False
html_copy_source = False

default_role = "any"
nitpicky = True

# Labels of Ansible's own docs resolve nowhere offline: they stay text. This collection's must resolve.
nitpick_ignore_regex = [("ref", r"(?!ansible_collections\.kafkaops\.cluster\.).*")]
