"""The example application goldgate's bundled gold is checked against."""
