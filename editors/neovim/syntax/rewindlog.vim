" Syntax for the :RewindLog buffer (filetype=rewindlog).
if exists('b:current_syntax')
  finish
endif
syntax match rewindlogHeader   /\%1l.*/
syntax match rewindlogHelp     /\%2l.*/
syntax match rewindlogTurn     /^Turn\s\+\d\+/
syntax match rewindlogStep     /^\s\+turn \d\+, step \d\+/
syntax match rewindlogAge      /\<\d\+[smhd] ago\>/
syntax match rewindlogOpen     /\[open\]/
syntax match rewindlogSection  /^\(Checkpoints\|Rewinds\|Reports\)$/
syntax match rewindlogLabel    /@\S\+/
syntax match rewindlogModified /^\s\+M\s/
syntax match rewindlogCreated  /^\s\+A\s/
syntax match rewindlogDeleted  /^\s\+D\s/
syntax match rewindlogAdded    /+\d\+/
syntax match rewindlogRemoved  /-\d\+\>/
syntax match rewindlogUndone   /\<undone$/
syntax match rewindlogOlder    /^Older turns….*/
highlight default link rewindlogHeader   Title
highlight default link rewindlogHelp     Comment
highlight default link rewindlogTurn     Statement
highlight default link rewindlogStep     Function
highlight default link rewindlogAge      Comment
highlight default link rewindlogOpen     WarningMsg
highlight default link rewindlogSection  Title
highlight default link rewindlogLabel    Identifier
highlight default link rewindlogModified Type
highlight default link rewindlogCreated  DiffAdd
highlight default link rewindlogDeleted  DiffDelete
highlight default link rewindlogAdded    String
highlight default link rewindlogRemoved  ErrorMsg
highlight default link rewindlogUndone   Comment
highlight default link rewindlogOlder    Special
let b:current_syntax = 'rewindlog'
