"""Warehouse scripts of Lager Ost."""
