
document.addEventListener('error',function(e){var i=e.target;if(!i||i.tagName!=='IMG')return;
var d=document.createElement('div');d.className='noimg';d.textContent='not found beside the report: '+
decodeURIComponent(i.getAttribute('src')||'')+' (keep its _files folder with it, or make it with --report-single-file)';
i.replaceWith(d);},true);
document.addEventListener('DOMContentLoaded',function(){
document.querySelectorAll('.js-only').forEach(function(e){e.hidden=false;});
document.querySelectorAll('button[data-open]').forEach(function(b){b.addEventListener('click',function(){
var open=b.getAttribute('data-open')==='1';document.querySelectorAll('main details').forEach(function(d){d.open=open;});});});});
