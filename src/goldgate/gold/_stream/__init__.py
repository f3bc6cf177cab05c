"""gold/_stream"""
