break square
